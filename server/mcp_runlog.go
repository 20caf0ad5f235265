package server

import (
	"context"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// mcpRecord writes an MCP tool call or resource read into the run log
// (kind "mcp", endpoint /mcp, the call in tool_calls), so GET /v1/runs
// lists it next to the API calls. The record goes to the shared store,
// so every node of a cluster sees it.
func (s *Server) mcpRecord(ctx context.Context, p *engine.Principal, start time.Time, name, server string, res *mcpToolResult) {
	if s.deps.Runner == nil || s.deps.Runner.RunLog() == nil || p == nil {
		return
	}
	d := time.Since(start)
	call := engine.RunToolCall{Name: name, Server: server, DurationMs: d.Milliseconds()}
	rec := engine.RunRecord{ID: engine.NewRunID(ctx, start), Owner: p.Owner, Endpoint: mcpPath, Kind: engine.RunKindMCP,
		KeyID: engine.KeyIDOf(ctx), Status: engine.RunSuccess, LatencyMs: d.Milliseconds(), CreatedAt: start.UTC()}
	if res == nil {
		rec.Status, rec.Error, call.Error = engine.RunError, "invalid params", "invalid params"
	} else if res.IsError {
		rec.Status = engine.RunError
		if len(res.Content) > 0 {
			call.Error = res.Content[0].Text
			rec.Error = call.Error
		}
	}
	rec.ToolCalls = []engine.RunToolCall{call}
	s.deps.Runner.RunLog().Record(rec)
}
