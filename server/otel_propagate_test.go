package server_test

import (
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/providers/mcp/mcptest"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestOTelPropagation: with tracing on, a provider call carries a W3C
// traceparent naming its chat span as parent, and an MCP tool call one
// naming its execute_tool span, so traced upstreams join the trace; with
// tracing off neither gets a traceparent, even when the caller sent one.
func TestOTelPropagation(t *testing.T) {
	ts, rec, up := startTraced(t)
	key := servertest.AdminKey
	up.SetRecording(true)
	mustStatus(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "prop", "model": "openai:gpt-4o-mini"}), 200)
	r := ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "prop", "messages": []map[string]string{{"role": "user", "content": "hi"}}})
	mustStatus(t, r, 200)
	ts.FlushTraces()
	tid := r.Header.Get(server.HeaderTraceID)
	chat := one(t, rec.Trace(tid), "chat gpt-4o-mini")
	if got, want := up.LastRequest().Header.Get("traceparent"), "00-"+tid+"-"+chat.SpanID+"-01"; got != want {
		t.Errorf("provider got traceparent %q, want %q (the chat span)", got, want)
	}

	srv := mcptest.Start(t, mcptest.Options{})
	r = runAgent(ts, map[string]any{"model": "hearth:echo", "input": `call_tool:calc__add {"a":2,"b":3}`,
		"mcp_servers": []any{mcpServer("calc", srv.URL)}})
	mustStatus(t, r, 200)
	ts.FlushTraces()
	tid = r.Header.Get(server.HeaderTraceID)
	want := "00-" + tid + "-" + one(t, rec.Trace(tid), "execute_tool add").SpanID + "-01"
	found := false
	for _, h := range srv.Headers() {
		found = found || h.Get("traceparent") == want
	}
	if !found {
		t.Errorf("no MCP request carried traceparent %q (the execute_tool span)", want)
	}

	off := fake.NewOpenAI()
	defer off.Close()
	off.SetRecording(true)
	plain := servertest.Start(t, servertest.WithProvider("openai", off.BaseURL(), "sk-server"))
	mustStatus(t, plain.Do("POST", "/v1/pipes", key, map[string]any{"name": "p", "model": "openai:gpt-4o-mini"}), 200)
	mustStatus(t, plain.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "p", "messages": []map[string]string{{"role": "user", "content": "hi"}}},
		"traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"), 200)
	if h := off.LastRequest().Header.Get("traceparent"); h != "" {
		t.Errorf("tracing off: provider got traceparent %q", h)
	}
	quiet := mcptest.Start(t, mcptest.Options{})
	mustStatus(t, runAgent(plain, map[string]any{"model": "hearth:echo", "input": `call_tool:calc__add {"a":2,"b":3}`,
		"mcp_servers": []any{mcpServer("calc", quiet.URL)}}), 200)
	for _, h := range quiet.Headers() {
		if tp := h.Get("traceparent"); tp != "" {
			t.Errorf("tracing off: MCP server got traceparent %q", tp)
		}
	}
	if len(quiet.Headers()) == 0 {
		t.Error("the MCP server got no request with tracing off")
	}
}
