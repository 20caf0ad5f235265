package server

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/hearth-dev/hearth/engine/agent"
)

// checkAgentShared decodes an agent run body with decodeAgentRunShared
// and with decodeFast: both take the same bodies and give the same value,
// and the shared path's strings survive the body's buffer being reused.
func checkAgentShared(t *testing.T, body []byte) {
	t.Helper()
	var want, got agent.AgentRunRequest
	var instructions string
	fast := decodeFast(body, &want)
	b := bytes.Clone(body)
	shared := decodeAgentRunShared(b, &got, &instructions)
	if shared != fast {
		t.Fatalf("%s: shared path took it %v, hand-written decoder %v", body, shared, fast)
	}
	for i := range b {
		b[i] = 'x' // the pooled body is reused by the next request
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got %s\nwant %s", body, dump(got), dump(want))
	}
}

// TestDecodeAgentRunShared: the shared path decodes every agent run body
// of the differential cases as decodeFast does (so as encoding/json does).
func TestDecodeAgentRunShared(t *testing.T) {
	for _, c := range agentRunBodies {
		checkAgentShared(t, []byte(c.body))
	}
	for _, body := range []string{
		`{"model":"a","model":"b\u0041","instructions":"x","instructions":null,"input":"i","input":[1]}`,
		`{"model":"b\u0041","model":"c","instructions":null,"instructions":"","input":null}`,
		`{"model":"","instructions":"","input":""}`,
		`{"model":5}`, `{"instructions":7}`, `{}`, `{"input":"caf\u00e9 \ud83d\ude00"}`,
	} {
		checkAgentShared(t, []byte(body))
	}
}

// FuzzDecodeAgentRunShared compares the shared path with decodeFast on
// arbitrary bodies.
func FuzzDecodeAgentRunShared(f *testing.F) {
	for _, c := range agentRunBodies {
		f.Add([]byte(c.body))
	}
	f.Fuzz(checkAgentShared)
}

// TestDecodeAgentRunSharedCommon: the common agent body (a model,
// instructions and a string input) takes the shared path, with the
// instructions in the run's own field.
func TestDecodeAgentRunSharedCommon(t *testing.T) {
	body := []byte(`{"model":"openai:gpt-4o-mini","instructions":"You are terse.","input":"Say something about foxes."}`)
	run := new(agentRun)
	if !decodeAgentRunShared(body, &run.req, &run.instructions) {
		t.Fatal("not taken")
	}
	if run.req.Model != "openai:gpt-4o-mini" || run.req.Instructions != &run.instructions || run.instructions != "You are terse." ||
		string(run.req.Input) != `"Say something about foxes."` {
		t.Fatalf("decoded %s", dump(run.req))
	}
}

// BenchmarkDecodeAgentRunSharedAllocs: the common agent body decodes in
// one allocation on Go 1.26, its three strings together: four before
// (each string, and the instructions' pointer).
func BenchmarkDecodeAgentRunSharedAllocs(b *testing.B) {
	body := []byte(`{"model":"openai:gpt-4o-mini","instructions":"You are terse.","input":"Say something about foxes."}`)
	run := new(agentRun)
	b.ReportAllocs()
	for b.Loop() {
		run.req = agent.AgentRunRequest{}
		if !decodeAgentRunShared(body, &run.req, &run.instructions) {
			b.Fatal("not taken")
		}
	}
}
