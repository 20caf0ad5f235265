package server

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/hearth-dev/hearth/engine"
)

// The MCP gateway offers the tools of the upstream MCP servers the
// operator allow-listed (Config.MCPUpstreams) under "<server>__<tool>",
// the names agent runs use. Each list and call opens its own session
// through Deps.ToolServers, so the egress policy, timeouts and the
// header rules of agent runs apply, and no node keeps upstream state.
// Read-only and pipe keys are not offered them: an upstream tool may
// change things.

// mcpGatewayOpen reports whether a principal may use upstream tools.
func (s *Server) mcpGatewayOpen(p *engine.Principal) bool {
	return s.deps.ToolServers != nil && len(s.cfg.MCPUpstreams) > 0 && p.IsOwnerKey() && (p.Scope == nil || !p.Scope.ReadOnly)
}

// mcpGatewayTools lists the allow-listed tools of every upstream server;
// a server that cannot be reached is left out (and logged).
func (s *Server) mcpGatewayTools(ctx context.Context, p *engine.Principal) []mcpTool {
	if !s.mcpGatewayOpen(p) {
		return nil
	}
	// The servers are asked at once, so one slow server costs its own
	// connect timeout, not the sum of all of them.
	lists := make([][]engine.RemoteTool, len(s.cfg.MCPUpstreams))
	var wg sync.WaitGroup
	for i, up := range s.cfg.MCPUpstreams {
		if !up.Enabled() {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			tools, err := s.upstreamTools(ctx, up)
			if err != nil {
				s.log.Warn("mcp gateway: upstream server not listed", "server", up.Name, "err", err)
				return
			}
			lists[i] = tools
		}()
	}
	wg.Wait()
	var out []mcpTool
	for i, up := range s.cfg.MCPUpstreams {
		for _, t := range lists[i] {
			if !up.Allows(t.Name) {
				continue
			}
			schema := map[string]any{"type": "object"}
			if len(t.InputSchema) > 0 {
				var m map[string]any
				if json.Unmarshal(t.InputSchema, &m) == nil && m != nil {
					schema = m
				}
			}
			out = append(out, mcpTool{Name: up.Name + "__" + t.Name, Description: "[" + up.Name + "] " + t.Description, InputSchema: schema})
		}
	}
	return out
}

func (s *Server) upstreamTools(ctx context.Context, up engine.MCPServer) ([]engine.RemoteTool, error) {
	sess, err := s.deps.ToolServers.Connect(ctx, up)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	return sess.Tools(ctx)
}

// mcpGatewayTool resolves "<server>__<tool>" to an allow-listed upstream tool.
func (s *Server) mcpGatewayTool(p *engine.Principal, name string) (engine.MCPServer, string, bool) {
	if !s.mcpGatewayOpen(p) {
		return engine.MCPServer{}, "", false
	}
	for _, up := range s.cfg.MCPUpstreams {
		tool, ok := strings.CutPrefix(name, up.Name+"__")
		if ok && tool != "" && up.Enabled() && up.Allows(tool) {
			return up, tool, true
		}
	}
	return engine.MCPServer{}, "", false
}

// mcpGatewayCall calls an upstream tool; an upstream that cannot be
// reached is an error the tool result reports.
func (s *Server) mcpGatewayCall(ctx context.Context, up engine.MCPServer, tool string, args json.RawMessage) (*mcpToolResult, error) {
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	sess, err := s.deps.ToolServers.Connect(ctx, up)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	r, err := sess.Call(ctx, tool, args)
	if err != nil {
		return nil, err
	}
	return &mcpToolResult{Content: []mcpContent{{Type: "text", Text: r.Text}}, IsError: r.IsError}, nil
}
