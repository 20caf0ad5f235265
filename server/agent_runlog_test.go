package server_test

import (
	"math"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/providers/mcp/mcptest"
	"github.com/hearth-dev/hearth/server/servertest"
)

// listRuns returns the admin's run records, newest first.
func listRuns(t *testing.T, ts *servertest.Server) []engine.RunRecord {
	t.Helper()
	ts.RunLog.Flush()
	var page struct {
		Data []engine.RunRecord `json:"data"`
	}
	r := ts.Do("GET", "/v1/runs", servertest.AdminKey, nil)
	mustStatus(t, r, 200)
	r.JSON(t, &page)
	return page.Data
}

// TestAgentRunLog: /v1/agent/run is in the run log (GET /v1/runs, the
// studio's Usage) as kind "agent": JSON and streamed runs with tokens
// summed over the MCP loop, the model, the time to first token when
// streamed, every MCP tool call (name, server, duration, the error of a
// failed one), and a failed
// upstream call as an error; a request naming an unknown provider is not
// a run.
func TestAgentRunLog(t *testing.T) {
	ts, up := startAgent(t)
	srv := mcptest.Start(t, mcptest.Options{Transport: mcptest.Streamable, Path: "/mcp"})
	for _, stream := range []bool{false, true} {
		body := map[string]any{"model": "hearth:echo", "input": `call_tool:calc__add {"a":2,"b":3}`, "stream": stream,
			"mcp_servers": []any{mcpServer("calc", srv.URL)}}
		mustStatus(t, runAgent(ts, body), 200)
	}
	up.Enqueue(fake.Reply{Status: 400, Message: "bad things"})
	if r := runAgent(ts, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi"}); r.Status != 400 {
		t.Fatalf("refused upstream: %d %s", r.Status, r.Body)
	}
	mustStatus(t, runAgent(ts, map[string]any{"model": "hearth:echo", "input": `call_tool:calc__fail {}`,
		"mcp_servers": []any{mcpServer("calc", srv.URL)}}), 200)
	toolFailed := listRuns(t, ts)[0]
	if len(toolFailed.ToolCalls) != 1 || toolFailed.ToolCalls[0].Name != "fail" || !strings.Contains(toolFailed.ToolCalls[0].Error, "boom") || toolFailed.Status != engine.RunSuccess {
		t.Fatalf("failed tool call record %+v", toolFailed)
	}
	if r := runAgent(ts, map[string]any{"model": "nosuch:model", "input": "hi"}); r.Status != 400 {
		t.Fatalf("unknown provider: %d %s", r.Status, r.Body)
	}
	runs := listRuns(t, ts)
	if len(runs) != 4 {
		t.Fatalf("%d run records, want 4: %+v", len(runs), runs)
	}
	failed, streamed, plain := runs[1], runs[2], runs[3]
	for _, r := range runs {
		if r.Kind != engine.RunKindAgent || r.Endpoint != "/v1/agent/run" || r.Pipe != "" || r.Owner == "" {
			t.Fatalf("record %+v", r)
		}
	}
	for _, r := range []engine.RunRecord{plain, streamed} {
		if r.Model != "hearth:echo" || r.Status != engine.RunSuccess || r.TotalTokens == 0 {
			t.Fatalf("agent record %+v", r)
		}
		if len(r.ToolCalls) != 1 || r.ToolCalls[0].Name != "add" || r.ToolCalls[0].Server != "calc" || r.ToolCalls[0].Error != "" || r.ToolCalls[0].DurationMs < 0 {
			t.Fatalf("tool calls of %+v", r)
		}
		if r.ContentStored {
			t.Fatalf("content stored without opting in: %+v", r)
		}
	}
	if plain.Stream || !streamed.Stream || streamed.FirstTokenMs == nil || plain.FirstTokenMs != nil {
		t.Fatalf("stream fields: plain %+v streamed %+v", plain, streamed)
	}
	if failed.Status != engine.RunError || failed.Error == "" || failed.Model != "openai:gpt-4o-mini" || len(failed.ToolCalls) != 0 {
		t.Fatalf("failed record %+v", failed)
	}
}

// TestImageRunLog: image generation is in the run log as kind "image"
// with the number of images and the catalogue's per-image list price, on
// /v1/images and /openai/v1/images/generations.
func TestImageRunLog(t *testing.T) {
	ts, _ := startImages(t)
	mustStatus(t, ts.Do("POST", "/v1/images", servertest.AdminKey,
		map[string]any{"prompt": "a red fox", "model": "openai:gpt-image-1", "n": 2}, "lb-llm-key", "sk-user"), 200)
	mustStatus(t, ts.Do("POST", "/openai/v1/images/generations", servertest.AdminKey,
		map[string]any{"prompt": "a red fox", "model": "openai:dall-e-3"}, "lb-llm-key", "sk-user"), 200)
	runs := listRuns(t, ts)
	if len(runs) != 2 {
		t.Fatalf("%d run records, want 2: %+v", len(runs), runs)
	}
	for i, want := range []struct {
		endpoint, model string
		images          int
		cost            float64
	}{{"/openai/v1/images/generations", "openai:dall-e-3", 1, 0.04}, {"/v1/images", "openai:gpt-image-1", 2, 0.084}} {
		r := runs[i]
		if r.Kind != engine.RunKindImage || r.Endpoint != want.endpoint || r.Model != want.model || r.Images != want.images || r.Status != engine.RunSuccess {
			t.Fatalf("image record %+v, want %+v", r, want)
		}
		if r.CostUSD == nil || math.Abs(*r.CostUSD-want.cost) > 1e-9 {
			t.Fatalf("image cost %v, want %g", r.CostUSD, want.cost)
		}
	}
}
