package servertest_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// exchange is one answer of the scripted session: its status, the id
// headers and the body.
type exchange struct {
	step                     string
	status                   int
	thread, request, traceID string
	body                     []byte
}

func (e exchange) String() string {
	return fmt.Sprintf("%s: %d thread=%q request=%q trace=%q\n%s", e.step, e.status, e.thread, e.request, e.traceID, e.body)
}

// session runs the same script against a fresh server: create a pipe, run
// it (JSON, then streaming on a new thread and again on that thread),
// read the thread and its messages, create a thread and a memory, run the
// agent (JSON and streaming), call the OpenAI-compatible chat, all with the offline hearth:echo model.
func session(t *testing.T, opts ...servertest.Option) []exchange {
	t.Helper()
	// One public URL for both servers: pipe and upload URLs carry it.
	opts = append(opts, servertest.WithConfig(func(c *server.Config) { c.PublicURL = "http://hearth.test" }))
	s := servertest.Start(t, opts...)
	var out []exchange
	do := func(step, method, path string, body any) exchange {
		r := s.Do(method, path, servertest.AdminKey, body)
		if r.Status >= 300 {
			t.Fatalf("%s: %d %s", step, r.Status, r.Body)
		}
		e := exchange{step: step, status: r.Status, thread: r.Header.Get(server.HeaderThreadID),
			request: r.Header.Get(server.HeaderRequestID), traceID: r.Header.Get(server.HeaderTraceID), body: r.Body}
		out = append(out, e)
		return e
	}
	msgs := func(text string) []map[string]string { return []map[string]string{{"role": "user", "content": text}} }
	do("create pipe", "POST", "/v1/pipes", map[string]any{"name": "snap", "model": "hearth:echo"})
	first := do("run", "POST", "/v1/pipes/run", map[string]any{"name": "snap", "messages": msgs("hello there")})
	streamed := do("run stream", "POST", "/v1/pipes/run", map[string]any{"name": "snap", "stream": true, "messages": msgs("a streamed answer")})
	do("run stream on thread", "POST", "/v1/pipes/run", map[string]any{"name": "snap", "stream": true,
		"threadId": streamed.thread, "messages": msgs("and more")})
	do("thread", "GET", "/v1/threads/"+first.thread, nil)
	do("thread messages", "GET", "/v1/threads/"+streamed.thread+"/messages", nil)
	do("create thread", "POST", "/v1/threads", map[string]any{"messages": msgs("stored")})
	do("create memory", "POST", "/v1/memory", map[string]any{"name": "notes", "embedding_model": "hearth:hash-embed"})
	do("agent", "POST", "/v1/agent/run", map[string]any{"model": "hearth:echo", "input": "echo me"})
	do("agent stream", "POST", "/v1/agent/run", map[string]any{"model": "hearth:echo", "input": "echo me", "stream": true})
	do("openai chat", "POST", "/openai/v1/chat/completions", map[string]any{"model": "hearth:echo", "messages": msgs("compatible")})
	return out
}

// TestDeterministicSessionsAreIdentical runs the script on two servers in
// deterministic mode and wants byte-identical answers and id headers;
// without the mode the same script gives different ids.
func TestDeterministicSessionsAreIdentical(t *testing.T) {
	a := session(t, servertest.WithDeterministic())
	b := session(t, servertest.WithDeterministic())
	for i := range a {
		if a[i].String() != b[i].String() {
			t.Errorf("deterministic runs differ at %s:\n%s\n----\n%s", a[i].step, a[i], b[i])
		}
		if a[i].request == "" || a[i].traceID == "" {
			t.Errorf("%s: no request or trace id", a[i].step)
		}
	}
	// The script did generate ids and timestamps.
	created := a[0].body
	if !bytes.Contains(created, []byte(`"api_key":"hth_pipe_`)) || a[1].thread == "" || a[2].thread == a[1].thread {
		t.Fatalf("the script made no ids: %s, threads %q %q", created, a[1].thread, a[2].thread)
	}
	if !strings.Contains(string(a[4].body), `"created_at":1735689`) {
		t.Errorf("thread created_at is not from the deterministic clock: %s", a[4].body)
	}

	c := session(t)
	d := session(t)
	if c[1].thread == d[1].thread || c[1].request == d[1].request || string(c[0].body) == string(d[0].body) {
		t.Fatalf("without deterministic mode two runs gave the same ids: %s / %s", c[1], d[1])
	}
}
