package server_test

import (
	"bytes"
	"log/slog"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/providers/mcp/mcptest"
	"github.com/hearth-dev/hearth/providers/otlp/otlptest"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// startTraced starts a server exporting traces to an in-process OTLP
// receiver, with an OpenAI fake upstream.
func startTraced(t *testing.T, opts ...servertest.Option) (*servertest.Server, *otlptest.Receiver, *fake.Server) {
	t.Helper()
	rec := &otlptest.Receiver{}
	col := httptest.NewServer(rec)
	t.Cleanup(col.Close)
	up := fake.NewOpenAI()
	t.Cleanup(up.Close)
	ts := servertest.Start(t, append([]servertest.Option{servertest.WithProvider("openai", up.BaseURL(), "sk-server"),
		servertest.WithOTel(col.URL, map[string]string{"Authorization": "Bearer collector-token"})}, opts...)...)
	return ts, rec, up
}

// one returns the only span of list named name.
func one(t *testing.T, list []otlptest.Span, name string) otlptest.Span {
	t.Helper()
	got := otlptest.Named(list, name)
	if len(got) != 1 {
		var names []string
		for _, s := range list {
			names = append(names, s.Name)
		}
		t.Fatalf("%d spans named %q in %v", len(got), name, names)
	}
	return got[0]
}

// waitSpan waits for the one span named name. An ingestion job's span ends
// after the job's last write (its record is gone, the document is
// completed), so a test that saw the job finish may still be ahead of it.
func waitSpan(t *testing.T, ts *servertest.Server, rec *otlptest.Receiver, name string) otlptest.Span {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		ts.FlushTraces()
		if len(otlptest.Named(rec.Spans(), name)) > 0 || time.Now().After(deadline) {
			return one(t, rec.Spans(), name)
		}
	}
}

// wantAttrs fails unless s carries every attribute of want.
func wantAttrs(t *testing.T, s otlptest.Span, want map[string]any) {
	t.Helper()
	for k, v := range want {
		if got, ok := s.Attrs[k]; !ok || got != v {
			t.Errorf("span %q: %s = %#v, want %#v (attrs %v)", s.Name, k, got, v, s.Attrs)
		}
	}
}

var hex32 = regexp.MustCompile(`^[0-9a-f]{32}$`)

// TestOTelPipeRun: a pipe run is a server span named after the route
// template, continuing the caller's traceparent, whose trace id is the
// lb-trace-id header and in the access log; the provider call is a GenAI
// client span under it, with the retry of a 503 as an event; a streamed
// run records the time to first chunk.
func TestOTelPipeRun(t *testing.T) {
	var logs bytes.Buffer
	ts, rec, up := startTraced(t, servertest.WithConfig(func(c *server.Config) {
		c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	}))
	key := servertest.AdminKey
	r := ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "traced", "model": "openai:gpt-4o-mini"})
	mustStatus(t, r, 200)

	up.Enqueue(fake.Reply{Status: 503, Message: "busy"}, fake.Reply{Text: "hello", Usage: fake.Usage{PromptTokens: 11, CompletionTokens: 7}})
	const parentTrace, parentSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	r = ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "traced", "stream": false,
		"messages": []map[string]string{{"role": "user", "content": "hi"}}}, "traceparent", "00-"+parentTrace+"-"+parentSpan+"-01")
	mustStatus(t, r, 200)
	if got := r.Header.Get(server.HeaderTraceID); got != parentTrace {
		t.Fatalf("lb-trace-id %q, want the traceparent's trace id %s", got, parentTrace)
	}
	ts.FlushTraces()
	trace := rec.Trace(parentTrace)
	root := one(t, trace, "POST /v1/pipes/run")
	if root.Kind != 2 || root.ParentSpanID != parentSpan || root.StatusCode == 2 {
		t.Errorf("server span %+v: want kind SERVER, parent %s, not failed", root, parentSpan)
	}
	wantAttrs(t, root, map[string]any{"http.request.method": "POST", "http.route": "/v1/pipes/run",
		"url.path": "/v1/pipes/run", "http.response.status_code": int64(200)})
	if root.Resource["service.name"] != "hearth-test" || root.Resource["service.version"] != "test" {
		t.Errorf("resource %v", root.Resource)
	}
	chat := one(t, trace, "chat gpt-4o-mini")
	if chat.ParentSpanID != root.SpanID || chat.Kind != 3 || chat.Start < root.Start || chat.End > root.End {
		t.Errorf("chat span %+v is not a client child within the server span %+v", chat, root)
	}
	wantAttrs(t, chat, map[string]any{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
		"gen_ai.request.model": "gpt-4o-mini", "gen_ai.usage.input_tokens": int64(11), "gen_ai.usage.output_tokens": int64(7),
		"hearth.stream": false})
	if m, _ := chat.Attrs["gen_ai.response.model"].(string); m == "" {
		t.Errorf("no gen_ai.response.model: %v", chat.Attrs)
	}
	if len(chat.Events) != 1 || chat.Events[0].Name != "hearth.retry" || chat.Events[0].Attrs["http.response.status_code"] != int64(503) {
		t.Errorf("chat events %+v: want one hearth.retry after the 503", chat.Events)
	}
	if h := rec.Headers()[0].Get("Authorization"); h != "Bearer collector-token" {
		t.Errorf("collector got Authorization %q", h)
	}
	if !strings.Contains(logs.String(), "trace_id="+parentTrace) {
		t.Errorf("access log lacks the trace id:\n%s", logs.String())
	}

	// Streamed, without a traceparent: a new trace, time to first chunk.
	up.Enqueue(fake.Reply{Text: "streamed answer", Usage: fake.Usage{PromptTokens: 5, CompletionTokens: 3}})
	r = ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "traced", "stream": true,
		"messages": []map[string]string{{"role": "user", "content": "hi"}}})
	mustStatus(t, r, 200)
	tid := r.Header.Get(server.HeaderTraceID)
	if !hex32.MatchString(tid) || tid == parentTrace {
		t.Fatalf("lb-trace-id %q: want a new 32-hex trace id", tid)
	}
	ts.FlushTraces()
	trace = rec.Trace(tid)
	root = one(t, trace, "POST /v1/pipes/run")
	if root.ParentSpanID != "" {
		t.Errorf("a request without traceparent has parent %s", root.ParentSpanID)
	}
	chat = one(t, trace, "chat gpt-4o-mini")
	wantAttrs(t, chat, map[string]any{"hearth.stream": true, "gen_ai.usage.input_tokens": int64(5), "gen_ai.usage.output_tokens": int64(3)})
	if ttfc, ok := chat.Attrs["gen_ai.response.time_to_first_chunk"].(float64); !ok || ttfc <= 0 || float64(chat.End-chat.Start)/1e9 < ttfc {
		t.Errorf("time_to_first_chunk %v: want a positive duration within the span", chat.Attrs["gen_ai.response.time_to_first_chunk"])
	}
	if fr, _ := chat.Attrs["gen_ai.response.finish_reasons"].([]any); len(fr) != 1 || fr[0] != "stop" {
		t.Errorf("finish_reasons %v", chat.Attrs["gen_ai.response.finish_reasons"])
	}
}

// TestOTelFallback: a model that fails and falls back is a failed chat
// span, the fallback model's a second one, and the fallback an event on
// the server span.
func TestOTelFallback(t *testing.T) {
	ts, rec, up := startTraced(t)
	key := servertest.AdminKey
	up.Enqueue(fake.Reply{Status: 500, Message: "down"}, fake.Reply{Status: 500, Message: "down"}, fake.Reply{Text: "from the fallback"})
	r := ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "fb", "model": "openai:gpt-4o-mini", "fallback_models": []string{"openai:gpt-4o"}})
	mustStatus(t, r, 200)
	r = ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "fb",
		"messages": []map[string]string{{"role": "user", "content": "hi"}}})
	mustStatus(t, r, 200)
	ts.FlushTraces()
	trace := rec.Trace(r.Header.Get(server.HeaderTraceID))
	failed, ok := one(t, trace, "chat gpt-4o-mini"), one(t, trace, "chat gpt-4o")
	if failed.StatusCode != 2 || ok.StatusCode == 2 {
		t.Errorf("status: primary %d, fallback %d; want the primary failed only", failed.StatusCode, ok.StatusCode)
	}
	root := one(t, trace, "POST /v1/pipes/run")
	var ev *otlptest.Event
	for i := range root.Events {
		if root.Events[i].Name == "hearth.fallback" {
			ev = &root.Events[i]
		}
	}
	if ev == nil || ev.Attrs["hearth.fallback.from"] != "openai:gpt-4o-mini" || ev.Attrs["hearth.fallback.to"] != "openai:gpt-4o" {
		t.Errorf("server span events %+v: want hearth.fallback from gpt-4o-mini to gpt-4o", root.Events)
	}
}

// TestOTelIngestionAndRetrieval: an ingestion job is a root span with
// parse, chunk, embeddings and index children; a retrieval is a span with
// the memories, mode and hits under the request's span.
func TestOTelIngestionAndRetrieval(t *testing.T) {
	ts, rec, _ := startTraced(t)
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel, "chunk_size": 2000, "chunk_overlap": 0})
	upload(t, ts, key, "kb", "zebra.md", "text/markdown", []byte("# Zebras\n\nZebras have black and white stripes."), nil)
	waitCompleted(t, ts, key, "kb", "zebra.md")
	job := waitSpan(t, ts, rec, "ingest zebra.md")
	if job.ParentSpanID != "" || job.StatusCode == 2 {
		t.Errorf("job span %+v: want a root span, not failed", job)
	}
	wantAttrs(t, job, map[string]any{"hearth.memory.name": "kb", "hearth.document.name": "zebra.md"})
	// The job's own trace links to the server span of the upload that queued it.
	if len(job.Links) != 1 || job.Links[0].TraceID == job.TraceID {
		t.Fatalf("job span links %+v: want one link to the upload request's trace", job.Links)
	}
	var queuedBy *otlptest.Span
	for _, s := range rec.Trace(job.Links[0].TraceID) {
		if s.SpanID == job.Links[0].SpanID {
			queuedBy = &s
		}
	}
	if queuedBy == nil || queuedBy.Kind != 2 || queuedBy.Attrs["http.request.method"] != "PUT" {
		t.Errorf("the job links to %+v, want the server span of the upload's PUT", queuedBy)
	}
	steps := otlptest.Children(rec.Trace(job.TraceID), job)
	parse, chunk, index := one(t, steps, "parse"), one(t, steps, "chunk"), one(t, steps, "index")
	emb := one(t, steps, "embeddings hash-embed")
	wantAttrs(t, parse, map[string]any{"hearth.document.content_type": "text/markdown"})
	wantAttrs(t, chunk, map[string]any{"hearth.chunks": int64(1)})
	wantAttrs(t, emb, map[string]any{"gen_ai.operation.name": "embeddings", "gen_ai.provider.name": "hearth"})
	wantAttrs(t, index, map[string]any{"hearth.index.chunks": int64(1), "hearth.index.vectors": int64(1)})
	if !(parse.End <= chunk.Start && chunk.End <= emb.Start && emb.End <= index.Start) {
		t.Errorf("steps out of order: parse %d-%d chunk %d-%d embed %d-%d index %d-%d",
			parse.Start, parse.End, chunk.Start, chunk.End, emb.Start, emb.End, index.Start, index.End)
	}

	// A document that fails marks its job span failed with its status message.
	upload(t, ts, key, "kb", "blank.txt", "text/plain", []byte("  \n\n  "), nil)
	if d := waitDoc(t, ts, key, "kb", "blank.txt"); d.Status != "failed" || d.StatusMessage == nil {
		t.Fatalf("blank document: %+v, want failed", d)
	} else {
		bad := waitSpan(t, ts, rec, "ingest blank.txt")
		if bad.StatusCode != 2 || bad.StatusMessage != *d.StatusMessage {
			t.Errorf("failed job span status %d %q, want error %q", bad.StatusCode, bad.StatusMessage, *d.StatusMessage)
		}
	}

	r := ts.Do("POST", "/v1/memory/retrieve", key, map[string]any{"query": "zebra stripes", "memory": []map[string]string{{"name": "kb"}}})
	mustStatus(t, r, 200)
	ts.FlushTraces()
	trace := rec.Trace(r.Header.Get(server.HeaderTraceID))
	root := one(t, trace, "POST /v1/memory/retrieve")
	ret := one(t, trace, "retrieval kb")
	if ret.ParentSpanID != root.SpanID {
		t.Errorf("retrieval span's parent %s, want the server span %s", ret.ParentSpanID, root.SpanID)
	}
	wantAttrs(t, ret, map[string]any{"gen_ai.operation.name": "retrieval", "gen_ai.data_source.id": "kb",
		"hearth.retrieval.mode": "hybrid", "hearth.retrieval.hits": int64(1), "hearth.retrieval.reranked": false})
	if m, _ := ret.Attrs["hearth.retrieval.memories"].([]any); len(m) != 1 || m[0] != "kb" {
		t.Errorf("memories %v", ret.Attrs["hearth.retrieval.memories"])
	}
	if q := one(t, trace, "embeddings hash-embed"); q.ParentSpanID != ret.SpanID {
		t.Errorf("query embedding's parent %s, want the retrieval span", q.ParentSpanID)
	}
}

// TestOTelAgentMCP: an agent run is an invoke_agent span under the
// request's span; its MCP tool call is an execute_tool span beside the
// model calls, all children of the invoke_agent span.
func TestOTelAgentMCP(t *testing.T) {
	ts, rec, _ := startTraced(t)
	srv := mcptest.Start(t, mcptest.Options{})
	r := runAgent(ts, map[string]any{"model": "hearth:echo", "input": `call_tool:calc__add {"a":2,"b":3}`,
		"mcp_servers": []any{mcpServer("calc", srv.URL)}})
	mustStatus(t, r, 200)
	ts.FlushTraces()
	trace := rec.Trace(r.Header.Get(server.HeaderTraceID))
	root := one(t, trace, "POST /v1/agent/run")
	agent := one(t, trace, "invoke_agent")
	if agent.ParentSpanID != root.SpanID || agent.Kind != 1 || agent.StatusCode == 2 || agent.Start < root.Start || agent.End > root.End {
		t.Errorf("invoke_agent span %+v: want an internal child within the server span %+v, not failed", agent, root)
	}
	wantAttrs(t, agent, map[string]any{"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "hearth",
		"gen_ai.request.model": "echo", "gen_ai.response.model": "echo", "hearth.stream": false, "hearth.agent.mcp_servers": int64(1)})
	if _, ok := agent.Attrs["gen_ai.usage.input_tokens"].(int64); !ok {
		t.Errorf("invoke_agent lacks gen_ai.usage.input_tokens: %v", agent.Attrs)
	}
	tool := one(t, trace, "execute_tool add")
	if tool.ParentSpanID != agent.SpanID || tool.StatusCode == 2 {
		t.Errorf("tool span %+v: want a child of the invoke_agent span, not failed", tool)
	}
	wantAttrs(t, tool, map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "add", "hearth.mcp.server": "calc"})
	if id, _ := tool.Attrs["gen_ai.tool.call.id"].(string); id == "" {
		t.Errorf("no gen_ai.tool.call.id: %v", tool.Attrs)
	}
	chats := otlptest.Named(trace, "chat echo")
	if len(chats) != 2 {
		t.Fatalf("%d chat spans, want 2 (the tool call, then the answer)", len(chats))
	}
	for _, c := range chats {
		if c.ParentSpanID != agent.SpanID {
			t.Errorf("chat span parent %s, want the invoke_agent span", c.ParentSpanID)
		}
	}
	if !(chats[0].End <= tool.Start && tool.End <= chats[1].Start) && !(chats[1].End <= tool.Start && tool.End <= chats[0].Start) {
		t.Errorf("the tool call is not between the two model calls")
	}

	// Streamed: the invoke_agent span ends with the stream and still
	// parents both model calls and the tool call.
	r = runAgent(ts, map[string]any{"model": "hearth:echo", "input": `call_tool:calc__add {"a":2,"b":3}`, "stream": true,
		"mcp_servers": []any{mcpServer("calc", srv.URL)}})
	mustStatus(t, r, 200)
	ts.FlushTraces()
	trace = rec.Trace(r.Header.Get(server.HeaderTraceID))
	agent = one(t, trace, "invoke_agent")
	wantAttrs(t, agent, map[string]any{"hearth.stream": true})
	if kids := otlptest.Children(trace, agent); len(otlptest.Named(kids, "chat echo")) != 2 || len(otlptest.Named(kids, "execute_tool add")) != 1 {
		t.Errorf("streamed invoke_agent children %+v: want two chat spans and one execute_tool", kids)
	}
}

// TestOTelOff: without an endpoint no tracer is built (so nothing can be
// posted) and lb-trace-id keeps its random trace_ form, whatever
// traceparent the caller sends.
func TestOTelOff(t *testing.T) {
	up := fake.NewOpenAI()
	defer up.Close()
	ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), "sk-server"))
	if ts.App.Tracer != nil {
		t.Fatal("a tracer was built without an endpoint")
	}
	key := servertest.AdminKey
	mustStatus(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "p", "model": "openai:gpt-4o-mini"}), 200)
	r := ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "p", "messages": []map[string]string{{"role": "user", "content": "hi"}}},
		"traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	mustStatus(t, r, 200)
	if tid := r.Header.Get(server.HeaderTraceID); !strings.HasPrefix(tid, "trace_") {
		t.Fatalf("lb-trace-id %q with tracing off, want the trace_ form", tid)
	}
}

// TestOTelEgress: the exporter connects through the egress dialer, so in
// allowlist mode a collector missing from HEARTH_OUTBOUND_HOSTS gets nothing
// (the refusal is recorded under the feature "otel"), and one listed gets
// the spans.
func TestOTelEgress(t *testing.T) {
	for _, allowed := range []bool{false, true} {
		rec := &otlptest.Receiver{}
		col := httptest.NewServer(rec)
		t.Cleanup(col.Close) // after the server's own cleanup, which flushes to it
		allow := []string{}
		if allowed {
			allow = append(allow, col.Listener.Addr().String())
		}
		ts := servertest.Start(t, servertest.WithOTel(col.URL, nil), servertest.WithEgress("allowlist", allow...))
		mustStatus(t, ts.Do("GET", "/v1/pipes", servertest.AdminKey, nil), 200)
		ts.FlushTraces()
		refused := false
		for _, e := range ts.App.Egress.Record() {
			refused = refused || (e.Feature == "otel" && e.Outcome == "refused")
		}
		m := string(ts.Do("GET", "/metrics", servertest.AdminKey, nil).Body)
		exported := regexp.MustCompile(`hearth_otel_spans_total\{outcome="exported"\} [1-9]`).MatchString(m)
		failed := regexp.MustCompile(`hearth_otel_spans_total\{outcome="failed"\} [1-9]`).MatchString(m)
		if exported != allowed || failed == allowed {
			t.Errorf("allowed %v: metrics exported %v failed %v:\n%s", allowed, exported, failed, m)
		}
		if allowed && (rec.Posts() == 0 || refused) {
			t.Errorf("collector allowed: %d posts, refused %v; want the spans delivered", rec.Posts(), refused)
		}
		if !allowed && (rec.Posts() != 0 || !refused) {
			t.Errorf("collector not allowed: %d posts, refused %v; want none and a recorded refusal", rec.Posts(), refused)
		}
	}
}
