package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// mcpTool is one MCP tool offered to the model under a collision-proof name.
type mcpTool struct {
	server  string
	name    string // the tool's own name on its server
	session engine.ToolSession
}

// toolbox holds the open MCP sessions of a run and the offered-name map.
type toolbox struct {
	sessions []engine.ToolSession
	byName   map[string]mcpTool
	tools    []engine.Tool
	// rec notes every MCP call for the run log (nil: not recorded).
	rec *runRecorder
}

func (tb *toolbox) close() {
	if tb == nil {
		return
	}
	for _, s := range tb.sessions {
		s.Close()
	}
}

// isMCP reports whether name is an offered MCP tool.
func (tb *toolbox) isMCP(name string) bool {
	if tb == nil {
		return false
	}
	_, ok := tb.byName[name]
	return ok
}

// openToolbox connects to every enabled server, lists its tools and keeps
// the allowed ones, named so that they cannot collide with each other or
// with the caller's tools, in tb (the run's own). On error every opened
// session is closed.
func openToolbox(ctx context.Context, tb *toolbox, ts engine.ToolServers, servers []engine.MCPServer, callerTools []engine.Tool) (*toolbox, error) {
	*tb = toolbox{} // byName stays nil (reads find nothing) until a server lists tools
	var active []engine.MCPServer
	for _, s := range servers {
		if s.Enabled() {
			active = append(active, s)
		}
	}
	if len(active) == 0 {
		return tb, nil
	}
	if ts == nil {
		return nil, engine.FieldError("mcp_servers", "MCP servers are not available on this server")
	}
	tb.byName = map[string]mcpTool{}
	taken := map[string]bool{}
	for _, t := range callerTools {
		taken[t.Function.Name] = true
	}
	type listed struct {
		server  engine.MCPServer
		session engine.ToolSession
		tools   []engine.RemoteTool
		err     error
	}
	results := make([]listed, len(active))
	var wg sync.WaitGroup
	for i, s := range active {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &results[i]
			r.server = s
			r.session, r.err = ts.Connect(ctx, s)
			if r.err != nil {
				return
			}
			r.tools, r.err = r.session.Tools(ctx)
			if r.err != nil {
				r.err = mcpError(s, "listing its tools", r.err)
			}
		}()
	}
	// The request's CPU turn goes to others while the servers answer.
	turn := engine.Away(ctx)
	wg.Wait()
	engine.Back(turn)
	var firstErr error
	for _, r := range results {
		if r.session != nil {
			tb.sessions = append(tb.sessions, r.session)
		}
		if r.err != nil && firstErr == nil {
			firstErr = r.err
		}
	}
	if firstErr != nil {
		tb.close()
		return nil, firstErr
	}
	for _, r := range results {
		for _, t := range r.tools {
			if !r.server.Allows(t.Name) {
				continue
			}
			name := offeredName(r.server.Name, t.Name, taken)
			taken[name] = true
			tb.byName[name] = mcpTool{server: r.server.Name, name: t.Name, session: r.session}
			params := t.InputSchema
			if isNull(params) || engine.JSONKind(params) != "object" {
				params = json.RawMessage(`{"type":"object","properties":{}}`)
			}
			tb.tools = append(tb.tools, engine.Tool{Type: "function", Function: engine.ToolFunction{
				Name: name, Description: t.Description, Parameters: params}})
		}
	}
	return tb, nil
}

// mcpError keeps an *Error from the adapter (it already names the server)
// and wraps anything else as an upstream error naming the server.
func mcpError(s engine.MCPServer, doing string, err error) error {
	var e *engine.Error
	if errors.As(err, &e) {
		return err
	}
	return engine.Wrap(err, engine.CodeUpstream, "MCP server %q failed while %s", s.Name, doing)
}

// offeredName is "<server>__<tool>" reduced to the characters and length
// every provider accepts (^[a-zA-Z0-9_-]{1,64}$). When that name is taken
// (by a caller tool or after sanitising), a hash of the real names makes
// it unique.
func offeredName(server, tool string, taken map[string]bool) string {
	base := sanitizeToolName(server + "__" + tool)
	if len(base) > 64 {
		base = base[:64]
	}
	if !taken[base] {
		return base
	}
	h := fnv.New64a()
	h.Write([]byte(server + "\x00" + tool))
	sum := h.Sum64()
	for i := uint64(0); ; i++ {
		suffix := fmt.Sprintf("_%08x", uint32(sum+i))
		name := base
		if len(name) > 64-len(suffix) {
			name = name[:64-len(suffix)]
		}
		name += suffix
		if !taken[name] {
			return name
		}
	}
}

func sanitizeToolName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// maxParallelToolCalls bounds how many MCP calls of one step run at once.
const maxParallelToolCalls = 4

// runTools executes the model's calls to MCP tools, at most
// maxParallelToolCalls at a time, and returns one tool message per call in
// call order. Failures reach the model as tool results, not as errors:
// only a cancelled run stops here.
func (tb *toolbox) runTools(ctx context.Context, calls []engine.ToolCall) ([]engine.Message, error) {
	out := make([]engine.Message, len(calls))
	sem := make(chan struct{}, maxParallelToolCalls)
	// The request's CPU turn goes to others while the tools run.
	turn := engine.Away(ctx)
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			start := time.Now()
			text, failed := tb.tracedCall(ctx, c)
			if t, ok := tb.byName[c.Function.Name]; ok {
				tb.rec.toolCall(t.server, t.name, time.Since(start), failed)
			}
			out[i] = engine.Message{Role: "tool", ToolCallID: c.ID, Name: c.Function.Name,
				Content: engine.TextContent(text)}
		}()
	}
	wg.Wait()
	engine.Back(turn)
	if err := ctx.Err(); err != nil {
		return nil, engine.Wrap(err, engine.CodeUpstreamTimeout, "agent run cancelled while calling MCP tools")
	}
	return out, nil
}

// callOne runs one call and renders its outcome as text for the model;
// failed is the error text when the call failed ("" when it worked).
func (tb *toolbox) callOne(ctx context.Context, c engine.ToolCall) (text, failed string) {
	t := tb.byName[c.Function.Name]
	args := json.RawMessage(strings.TrimSpace(c.Function.Arguments))
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if !json.Valid(args) || engine.JSONKind(args) != "object" {
		msg := fmt.Sprintf("Error: the arguments for tool %s are not a JSON object.", c.Function.Name)
		return msg, "arguments are not a JSON object"
	}
	res, err := t.session.Call(ctx, t.name, args)
	if err != nil {
		msg := err.Error()
		var e *engine.Error
		if errors.As(err, &e) {
			msg = e.Message
		}
		return fmt.Sprintf("Error: calling tool %s on MCP server %s failed: %s", t.name, t.server, msg), msg
	}
	if res.IsError {
		text := res.Text
		if text == "" {
			text = "the tool reported an error without a message"
		}
		return "Error: " + text, text
	}
	return res.Text, ""
}
