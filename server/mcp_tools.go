package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/filter"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/labstack/echo/v4"
)

// mcpTool is one entry of tools/list.
type mcpTool struct {
	Name        string         `json:"name"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description,omitempty"`
	InputSchema map[string]any `json:"inputSchema"`
	Annotations map[string]any `json:"annotations,omitempty"`
}

// mcpContent is one content block of a tool result or resource.
type mcpContent struct {
	Type        string `json:"type"`
	Text        string `json:"text,omitempty"`
	URI         string `json:"uri,omitempty"`
	Name        string `json:"name,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
	Description string `json:"description,omitempty"`
}

// mcpToolResult is the result of tools/call.
type mcpToolResult struct {
	Content           []mcpContent `json:"content"`
	StructuredContent any          `json:"structuredContent,omitempty"`
	IsError           bool         `json:"isError,omitempty"`
}

// Names of Hearth's own MCP tools.
const (
	mcpToolListMemories = "list_memories"
	mcpToolRetrieve     = "retrieve"
	mcpToolListPipes    = "list_pipes"
	mcpToolRunPipe      = "run_pipe"
)

func object(props map[string]any, required ...string) map[string]any {
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

var readOnlyTool = map[string]any{"readOnlyHint": true, "openWorldHint": false}

// mcpBuiltinTools are Hearth's own tools a principal may call: memory
// tools for user and org keys, pipe tools for every key.
func mcpBuiltinTools(p *engine.Principal) []mcpTool {
	var out []mcpTool
	if p.IsOwnerKey() {
		out = append(out,
			mcpTool{Name: mcpToolListMemories, Title: "List memories", Annotations: readOnlyTool,
				Description: "Lists the memories (searchable document collections) this key may read, with their documents.",
				InputSchema: object(map[string]any{})},
			mcpTool{Name: mcpToolRetrieve, Title: "Search memories", Annotations: readOnlyTool,
				Description: "Searches one or more memories for the passages closest to a query, best first. Each result names its memory and document; " +
					"the whole document is the resource hearth://memory/<memory>/<document>.",
				InputSchema: object(map[string]any{
					"query":     map[string]any{"type": "string", "description": "What to search for."},
					"memories":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "Names of the memories to search (default: every memory this key may read)."},
					"topK":      map[string]any{"type": "integer", "minimum": 1, "maximum": memory.MaxTopK, "description": fmt.Sprintf("How many passages to return (default %d).", memory.DefaultRetrieveTopK)},
					"filters":   map[string]any{"description": `Document meta filter, as in the retrieve API: ["field", "Eq", "value"] or ["And"|"Or", [filters...]].`},
					"min_score": map[string]any{"type": "number", "minimum": 0, "maximum": 1, "description": "Drop passages scoring below this similarity."},
				}, "query")})
	}
	out = append(out,
		mcpTool{Name: mcpToolListPipes, Title: "List pipes", Annotations: readOnlyTool,
			Description: "Lists the pipes (stored prompts) this key may run, with their variables and memories.",
			InputSchema: object(map[string]any{})},
		mcpTool{Name: mcpToolRunPipe, Title: "Run a pipe",
			Annotations: map[string]any{"readOnlyHint": false, "destructiveHint": false, "openWorldHint": true},
			Description: "Runs a pipe (a stored prompt with its model, memories and settings) and returns its completion. " +
				"variables fill the pipe's {{variables}} (list_pipes names them).",
			InputSchema: object(map[string]any{
				"name":            map[string]any{"type": "string", "description": "The pipe to run (optional with a pipe key)."},
				"message":         map[string]any{"type": "string", "description": "The user message."},
				"variables":       map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}, "description": "Values of the pipe's variables."},
				"thread_id":       map[string]any{"type": "string", "description": "Continue this thread (the answer names the thread it used)."},
				"include_sources": map[string]any{"type": "boolean", "description": "Also return the memory passages the run used."},
			})})
	return out
}

// mcpToolsList answers tools/list: Hearth's tools and, for user and org
// keys that may change things, the allow-listed upstream MCP tools.
func (s *Server) mcpToolsList(c echo.Context) (any, error) {
	p := principal(c)
	tools := mcpBuiltinTools(p)
	tools = append(tools, s.mcpGatewayTools(c.Request().Context(), p)...)
	return map[string]any{"tools": tools}, nil
}

type mcpCallParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// mcpToolsCall answers tools/call. An unknown tool is a JSON-RPC error;
// a refusal or failure of a known tool (a scope, a missing memory, bad
// arguments, an upstream error) is a tool result with isError, so the
// model can read it. Every call goes into the run log: a run_pipe the
// engine accepted as the pipe run it is, any other call as an "mcp" record.
func (s *Server) mcpToolsCall(c echo.Context, params json.RawMessage) (any, error) {
	var cp mcpCallParams
	if err := unmarshalParams(params, &cp); err != nil {
		return nil, err
	}
	p := principal(c)
	start := time.Now()
	var res *mcpToolResult
	var err error
	server := "hearth"
	switch name := cp.Name; {
	case name == mcpToolRunPipe:
		var recorded bool
		res, recorded, err = s.mcpRunPipe(c, cp.Arguments)
		if recorded {
			return toolResult(res, err)
		}
	case name == mcpToolListPipes:
		res, err = s.mcpListPipes(c.Request().Context(), p)
	case p.IsOwnerKey() && name == mcpToolListMemories:
		res, err = s.mcpListMemories(c.Request().Context(), p)
	case p.IsOwnerKey() && name == mcpToolRetrieve:
		res, err = s.mcpRetrieve(c, cp.Arguments)
	default:
		up, tool, ok := s.mcpGatewayTool(p, name)
		if !ok {
			return nil, rpcErr(rpcInvalidParams, "unknown tool "+quoteShort(name)+": tools/list names the tools this key may call")
		}
		server = up.Name
		res, err = s.mcpGatewayCall(c.Request().Context(), up, tool, cp.Arguments)
	}
	out, rerr := toolResult(res, err)
	s.mcpRecord(c.Request().Context(), p, start, cp.Name, server, out)
	return out, rerr
}

// toolResult turns a tool's error into an isError result naming Hearth's
// error code; JSON-RPC errors stay protocol errors.
func toolResult(res *mcpToolResult, err error) (*mcpToolResult, error) {
	if err == nil {
		return res, nil
	}
	var re *rpcError
	if errors.As(err, &re) {
		return nil, re
	}
	ee, status := toEngineError(err)
	msg := ee.Message
	if status >= 500 && ee.Code == engine.CodeInternal {
		msg = "internal server error"
	}
	return &mcpToolResult{IsError: true, Content: []mcpContent{{Type: "text", Text: ee.Code + ": " + msg}}}, nil
}

// jsonResult is a tool result carrying v as structured content and as its
// JSON text (for clients that read only text).
func jsonResult(v any, extra ...mcpContent) (*mcpToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcpToolResult{Content: append([]mcpContent{{Type: "text", Text: string(b)}}, extra...), StructuredContent: v}, nil
}

// mcpMemoryView is one memory of list_memories.
type mcpMemoryView struct {
	Name           string   `json:"name"`
	Description    string   `json:"description"`
	EmbeddingModel string   `json:"embedding_model"`
	TopK           int      `json:"top_k"`
	Documents      []string `json:"documents"`
}

// readableMemories lists the owner's memories the key's scope lets it read.
func (s *Server) readableMemories(ctx context.Context, p *engine.Principal) ([]*memory.Memory, error) {
	list, err := s.deps.Memory.List(ctx, p.Owner)
	if err != nil {
		return nil, err
	}
	out := list[:0:0]
	for _, m := range list {
		if p.Scope.CheckMemory(m.Name) == nil {
			out = append(out, m)
		}
	}
	return out, nil
}

func (s *Server) mcpListMemories(ctx context.Context, p *engine.Principal) (*mcpToolResult, error) {
	list, err := s.readableMemories(ctx, p)
	if err != nil {
		return nil, err
	}
	out := make([]mcpMemoryView, 0, len(list))
	for _, m := range list {
		_, docs, err := s.deps.Memory.Documents(ctx, p.Owner, m.Name)
		if err != nil {
			return nil, err
		}
		names := make([]string, 0, len(docs))
		for _, d := range docs {
			names = append(names, d.Name)
		}
		out = append(out, mcpMemoryView{Name: m.Name, Description: m.Description, EmbeddingModel: m.EmbeddingModel, TopK: m.TopK, Documents: names})
	}
	return jsonResult(map[string]any{"memories": out})
}

type mcpRetrieveArgs struct {
	Query    string          `json:"query"`
	Memories []string        `json:"memories"`
	TopK     *int            `json:"topK"`
	Filters  json.RawMessage `json:"filters"`
	MinScore *float64        `json:"min_score"`
}

// mcpRetrieve is the retrieve tool: the retrieve API's engine call, its
// scope check first.
func (s *Server) mcpRetrieve(c echo.Context, args json.RawMessage) (*mcpToolResult, error) {
	var a mcpRetrieveArgs
	if err := toolArgs(args, &a); err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.Query) == "" {
		return nil, engine.FieldError("query", "is required")
	}
	ctx, p := c.Request().Context(), principal(c)
	if len(a.Memories) == 0 {
		list, err := s.readableMemories(ctx, p)
		if err != nil {
			return nil, err
		}
		if len(list) == 0 {
			return nil, engine.FieldError("memories", "this key may read no memory")
		}
		for _, m := range list {
			a.Memories = append(a.Memories, m.Name)
		}
	}
	f, err := filter.ParseField(a.Filters, "filters")
	if err != nil {
		return nil, err
	}
	req := memory.RetrieveRequest{Query: a.Query, TopK: memory.DefaultRetrieveTopK, MinScore: a.MinScore}
	if a.TopK != nil {
		req.TopK = *a.TopK
	}
	for i, name := range a.Memories {
		if strings.TrimSpace(name) == "" {
			return nil, engine.FieldError(fmt.Sprintf("memories[%d]", i), "is required")
		}
		if err := p.Scope.CheckMemory(name); err != nil {
			return nil, err
		}
		req.Memories = append(req.Memories, memory.MemoryQuery{Name: name, Filter: f})
	}
	r, err := s.deps.Memory.Search(ctx, p.Owner, req)
	if err != nil {
		return nil, err
	}
	results := retrieved(r.Results)
	var links []mcpContent
	if mcpLinks(c) {
		seen := map[string]bool{}
		for _, res := range results {
			uri := documentURI(res.MemoryName, res.DocumentName)
			if !seen[uri] {
				seen[uri] = true
				links = append(links, mcpContent{Type: "resource_link", URI: uri, Name: res.DocumentName, MimeType: "text/plain",
					Description: "Document " + res.DocumentName + " of memory " + res.MemoryName})
			}
		}
	}
	out := map[string]any{"results": results}
	if mode := retrievalMode(r); mode != "" {
		out["retrieval_mode"] = mode
	}
	return jsonResult(out, links...)
}

// mcpLinks reports whether the request's protocol revision has
// resource_link content (2025-06-18 and later).
func mcpLinks(c echo.Context) bool {
	v := c.Request().Header.Get("MCP-Protocol-Version")
	return v >= "2025-06-18"
}

// toolArgs decodes a tool's arguments; a decoding failure names the field.
func toolArgs(args json.RawMessage, v any) error {
	if len(args) == 0 || string(args) == "null" {
		return nil
	}
	if err := json.Unmarshal(args, v); err != nil {
		return jsonError(err)
	}
	return nil
}
