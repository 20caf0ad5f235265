package server_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// downUpstream is an OpenAI-wire upstream that answers every call 503
// until up is set, then a fixed completion; calls counts requests.
type downUpstream struct {
	*httptest.Server
	up    atomic.Bool
	calls atomic.Int32
}

func newDownUpstream(t *testing.T) *downUpstream {
	d := &downUpstream{}
	d.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.calls.Add(1)
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if !d.up.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"error":{"message":"overloaded","type":"server_error"}}`)
			return
		}
		io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"from openai"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`)
	}))
	t.Cleanup(d.Close)
	return d
}

// TestPipeFallbackModels: a pipe whose provider is down answers from its
// first fallback, whole and streamed; lb-model and the run record name
// the model that answered. A refused request (4xx) does not fall back.
func TestPipeFallbackModels(t *testing.T) {
	up := newDownUpstream(t)
	ts := servertest.Start(t, servertest.WithProvider("openai", up.URL+"/v1", "sk-test"))
	key := servertest.AdminKey
	r := ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "sturdy", "model": "openai:gpt-4o-mini",
		"fallback_models": []string{"openai:gpt-4.1-mini", "hearth:echo"}})
	mustStatus(t, r, 200)
	r = ts.Do("GET", "/v1/pipes/sturdy", key, nil)
	if !strings.Contains(string(r.Body), `"fallback_models":["openai:gpt-4.1-mini","hearth:echo"]`) {
		t.Fatalf("pipe view: %s", r.Body)
	}
	body := map[string]any{"name": "sturdy", "messages": userMsg("are you there")}
	r = ts.Do("POST", "/v1/pipes/run", key, body)
	mustStatus(t, r, 200)
	if !strings.Contains(string(r.Body), `"completion":"are you there"`) || r.Header.Get(server.HeaderModel) != "hearth:echo" {
		t.Fatalf("fallback run: %v %s", r.Header, r.Body)
	}
	body["stream"] = true
	resp := postStream(t, context.Background(), ts.URL+"/v1/pipes/run", key, body)
	events := readSSE(t, resp)
	if resp.Header.Get(server.HeaderModel) != "hearth:echo" || !strings.Contains(events[0].Data, `"model":"hearth:echo"`) {
		t.Fatalf("fallback stream: %v %+v", resp.Header, events)
	}
	ts.RunLog.Flush()
	page, err := ts.RunLog.List(context.Background(), "admin", "", 10, "")
	if err != nil || len(page.Runs) != 2 {
		t.Fatalf("runs: %v %+v", err, page)
	}
	for _, run := range page.Runs {
		if run.Model != "hearth:echo" || run.Status != "success" {
			t.Fatalf("run record %+v", run)
		}
	}

	up.up.Store(true)
	r = ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "sturdy", "messages": userMsg("hi")})
	mustStatus(t, r, 200)
	if r.Header.Get(server.HeaderModel) != "openai:gpt-4o-mini" || !strings.Contains(string(r.Body), "from openai") {
		t.Fatalf("primary back: %v %s", r.Header, r.Body)
	}

	// A 4xx is the request's fault: no fallback.
	mustStatus(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "strict", "model": "hearth:echo", "max_tokens": 5,
		"fallback_models": []string{"openai:gpt-4o-mini"}}), 200)
	calls := up.calls.Load()
	r = ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "strict", "messages": userMsg("x"), "threadId": "not a thread"})
	if r.Status != 400 || up.calls.Load() != calls {
		t.Fatalf("bad request fell back: %d %s", r.Status, r.Body)
	}

	r = ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "wrong", "model": "hearth:echo", "fallback_models": []string{"nope:x"}})
	if r.Status != 400 || !strings.Contains(string(r.Body), "fallback_models[0]") {
		t.Fatalf("unknown fallback provider: %d %s", r.Status, r.Body)
	}
}

// TestAgentAndOpenAIFallbacks: fallback_models on an agent run and the
// LB-Fallback-Models header on the OpenAI surface.
func TestAgentAndOpenAIFallbacks(t *testing.T) {
	up := newDownUpstream(t)
	ts := servertest.Start(t, servertest.WithProvider("openai", up.URL+"/v1", "sk-test"))
	key := servertest.AdminKey
	r := ts.Do("POST", "/v1/agent/run", key, map[string]any{"model": "openai:gpt-4o-mini", "input": "agent here",
		"fallback_models": []string{"hearth:echo"}})
	mustStatus(t, r, 200)
	if r.Header.Get(server.HeaderModel) != "hearth:echo" || !strings.Contains(string(r.Body), `"output":"agent here"`) {
		t.Fatalf("agent: %v %s", r.Header, r.Body)
	}
	r = ts.Do("POST", "/openai/v1/chat/completions", key, map[string]any{"model": "openai/gpt-4o-mini", "messages": userMsg("oai here")},
		server.HeaderFallbackModels, "hearth/echo")
	mustStatus(t, r, 200)
	if r.Header.Get(server.HeaderModel) != "hearth:echo" || !strings.Contains(string(r.Body), "oai here") {
		t.Fatalf("openai surface: %v %s", r.Header, r.Body)
	}
	r = ts.Do("POST", "/openai/v1/chat/completions", key, map[string]any{"model": "openai/gpt-4o-mini", "messages": userMsg("x")})
	if r.Status != 502 || !strings.Contains(string(r.Body), `"type":"server_error"`) {
		t.Fatalf("no fallback: %d %s", r.Status, r.Body)
	}
	r = ts.Do("POST", "/openai/v1/chat/completions", key, map[string]any{"model": "hearth:echo", "messages": userMsg("x")},
		server.HeaderFallbackModels, "pipe:x")
	if r.Status != 400 || !strings.Contains(string(r.Body), `"param":"LB-Fallback-Models"`) {
		t.Fatalf("bad header: %d %s", r.Status, r.Body)
	}
}
