package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// AgentRunRequest is the body of POST /v1/agent/run. Fields whose JSON
// shape varies (input, tool_choice, stop, response_format) stay raw and are
// checked by Validate, so every error names the field at fault. Unknown
// keys (the SDK sends apiKey, rawResponse, ...) are ignored by the decoder.
type AgentRunRequest struct {
	Model string `json:"model"`
	// Input is a string or an array of messages. A run keeps references to
	// its bytes (a string input's user message shares them), so they must
	// not be modified once the request is handed to Run or RunIn.
	Input               json.RawMessage            `json:"input"`
	Instructions        *string                    `json:"instructions"`
	Stream              bool                       `json:"stream"`
	Tools               []json.RawMessage          `json:"tools"`
	ToolChoice          json.RawMessage            `json:"tool_choice"`
	ParallelToolCalls   *bool                      `json:"parallel_tool_calls"`
	ReasoningEffort     *string                    `json:"reasoning_effort"`
	Temperature         *float64                   `json:"temperature"`
	TopP                *float64                   `json:"top_p"`
	MaxTokens           *float64                   `json:"max_tokens"`
	MaxCompletionTokens *float64                   `json:"max_completion_tokens"`
	PresencePenalty     *float64                   `json:"presence_penalty"`
	FrequencyPenalty    *float64                   `json:"frequency_penalty"`
	Stop                json.RawMessage            `json:"stop"`
	ResponseFormat      json.RawMessage            `json:"response_format"`
	CustomModelParams   map[string]json.RawMessage `json:"customModelParams"`
	MCPServers          []engine.MCPServer         `json:"mcp_servers"`
	// FallbackModels are tried in order when the model fails before its
	// first output (docs/providers.md#fallbacks).
	FallbackModels []string `json:"fallback_models"`
	// APIKey is the provider key the SDK copies into the body; the
	// LB-LLM-Key header wins over it.
	APIKey string `json:"apiKey"`
}

// Agent run defaults, from the Langbase agent API reference.
const (
	AgentDefaultTemperature = 0.7
	AgentDefaultTopP        = 1.0
	AgentDefaultMaxTokens   = 1000
	agentMaxStop            = 4
)

// agentRun is a validated request: the model, the chat request sent at the
// first step (without MCP tools yet) and the MCP servers to connect.
type agentRun struct {
	ref     engine.ModelRef
	chat    *engine.ChatRequest
	stream  bool
	servers []engine.MCPServer
	// apiKey is the key from the body, used when no header key was sent.
	apiKey string
	// rec records the run (nil: not recorded, as for Complete); accepted
	// is set once the model is allowed and known: a request refused
	// before that is not a run.
	rec      *runRecorder
	accepted bool
	// recorder is what rec points to when runs are logged.
	recorder runRecorder
	// toolbox is the run's MCP toolbox (openToolbox).
	toolbox toolbox
	// secrets are the provider keys redacted from the run's logged
	// content (runOutcome.secrets points here).
	secrets [2]string
	// first holds chat and what its pointers point to, so a validated
	// request is one allocation (request_first.go).
	first firstStep
	// model holds the metrics wrapper of the run's model, and result the
	// non-stream outcome, so neither is an allocation of its own.
	model  engine.ChatModelSlot
	result AgentResult
}

var (
	mcpServerNameRE  = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$`)
	reasoningEfforts = map[string]bool{"none": true, "low": true, "medium": true, "high": true}
)

// validate checks every field and builds the first step's chat request,
// with the spec's defaults for what the caller left out.
func (r *AgentRunRequest) validate() (*agentRun, error) {
	run := new(agentRun)
	if err := r.validateInto(run); err != nil {
		return nil, err
	}
	return run, nil
}

// validateInto is validate with the run built in run, which it resets.
func (r *AgentRunRequest) validateInto(run *agentRun) error {
	if strings.TrimSpace(r.Model) == "" {
		return engine.FieldError("model", "is required (provider:model_id)")
	}
	ref, err := engine.ParseModelID("model", r.Model)
	if err != nil {
		return err
	}
	*run = agentRun{ref: ref, stream: r.Stream, servers: r.MCPServers}
	msgs, err := agentMessages(r.Input, r.Instructions, run.first.msgs[:0])
	if err != nil {
		return err
	}
	chat := &run.first.chat
	*chat = engine.ChatRequest{Model: ref.Model, Messages: msgs, ParallelToolCalls: r.ParallelToolCalls,
		Extra: r.CustomModelParams}
	run.chat = chat
	if chat.Tools, err = agentTools(r.Tools); err != nil {
		return err
	}
	if chat.ToolChoice, err = agentToolChoice(r.ToolChoice); err != nil {
		return err
	}
	if r.ReasoningEffort != nil {
		if !reasoningEfforts[*r.ReasoningEffort] {
			return engine.FieldError("reasoning_effort", "must be one of none, low, medium, high (or null), got %q", *r.ReasoningEffort)
		}
		chat.ReasoningEffort = *r.ReasoningEffort
	}
	if err := run.first.sampling(r); err != nil {
		return err
	}
	if chat.Stop, err = agentStop(r.Stop); err != nil {
		return err
	}
	if chat.ResponseFormat, err = agentResponseFormat(r.ResponseFormat); err != nil {
		return err
	}
	if err := validateMCPServers(r.MCPServers); err != nil {
		return err
	}
	if tc := chat.ToolChoice; tc != nil && tc.Function != "" && len(r.MCPServers) == 0 && !engine.HasToolNamed(chat.Tools, tc.Function) {
		return engine.FieldError("tool_choice", "names function %q, which is not among the tools offered", tc.Function)
	}
	run.apiKey = strings.TrimSpace(r.APIKey)
	return nil
}

func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// agentMessages reads input: a string is one user message, an array holds
// InputMessages.
func agentMessages(input json.RawMessage, instructions *string, buf []engine.Message) ([]engine.Message, error) {
	switch engine.JSONKind(input) {
	case "null":
		return nil, engine.FieldError("input", "is required (a string or an array of messages)")
	case "string":
		s, ok := jsonStringShared(input) // the request's input is never modified (AgentRunRequest.Input)
		if !ok {
			return nil, engine.FieldError("input", "is not a valid JSON string")
		}
		if strings.TrimSpace(s) == "" {
			return nil, engine.FieldError("input", "must not be empty")
		}
		return append(withInstructions(buf, instructions), engine.Message{Role: "user", Content: engine.TextContent(s)}), nil
	case "array":
	default:
		return nil, engine.FieldError("input", "must be a string or an array of messages, got %s", engine.JSONKind(input))
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(input, &raws); err != nil {
		return nil, engine.FieldError("input", "is not a valid array")
	}
	if len(raws) == 0 {
		return nil, engine.FieldError("input", "must hold at least one message")
	}
	msgs := withInstructions(make([]engine.Message, 0, len(raws)+1), instructions)
	for i, raw := range raws {
		m, err := inputMessage("input", i, raw)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, m)
	}
	return msgs, nil
}

type rawInputMessage struct {
	Role       json.RawMessage `json:"role"`
	Content    json.RawMessage `json:"content"`
	Name       json.RawMessage `json:"name"`
	ToolCallID json.RawMessage `json:"tool_call_id"`
	ToolCalls  json.RawMessage `json:"tool_calls"`
}

// messageContent reads a string, an array of text/image_url parts, or null.
func messageContent(field string, raw json.RawMessage) (engine.Content, error) {
	switch engine.JSONKind(raw) {
	case "null":
		return engine.Content{}, nil
	case "string":
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return engine.Content{}, engine.FieldError(field, "is not a valid JSON string")
		}
		return engine.TextContent(s), nil
	case "array":
	default:
		return engine.Content{}, engine.FieldError(field, "must be a string, an array of content parts, or null, got %s", engine.JSONKind(raw))
	}
	var raws []json.RawMessage
	if json.Unmarshal(raw, &raws) != nil {
		return engine.Content{}, engine.FieldError(field, "is not a valid array")
	}
	parts := make([]engine.ContentPart, 0, len(raws))
	for i, pr := range raws {
		f := fmt.Sprintf("%s[%d]", field, i)
		var p engine.ContentPart
		if engine.JSONKind(pr) != "object" || json.Unmarshal(pr, &p) != nil {
			return engine.Content{}, engine.FieldError(f, "must be a content part object {type, text | image_url}")
		}
		switch p.Type {
		case "text":
		case "image_url":
			if p.ImageURL == nil || p.ImageURL.URL == "" {
				return engine.Content{}, engine.FieldError(f+".image_url.url", "is required on image_url parts")
			}
			switch p.ImageURL.Detail {
			case "", "auto", "low", "high":
			default:
				return engine.Content{}, engine.FieldError(f+".image_url.detail", "must be auto, low or high, got %q", p.ImageURL.Detail)
			}
		case "":
			return engine.Content{}, engine.FieldError(f+".type", "is required (text or image_url)")
		default:
			return engine.Content{}, engine.FieldError(f+".type", "must be text or image_url, got %q", p.Type)
		}
		parts = append(parts, p)
	}
	return engine.Content{Parts: parts, Set: true}, nil
}

func inputToolCalls(field string, raw json.RawMessage) ([]engine.ToolCall, error) {
	var calls []engine.ToolCall
	if engine.JSONKind(raw) != "array" || json.Unmarshal(raw, &calls) != nil {
		return nil, engine.FieldError(field, "must be an array of tool calls {id, type: function, function: {name, arguments}}")
	}
	for i := range calls {
		c := &calls[i]
		f := fmt.Sprintf("%s[%d]", field, i)
		c.Index = nil
		if c.ID == "" {
			return nil, engine.FieldError(f+".id", "is required")
		}
		if c.Type == "" {
			c.Type = "function"
		} else if c.Type != "function" {
			return nil, engine.FieldError(f+".type", "must be function, got %q", c.Type)
		}
		if c.Function.Name == "" {
			return nil, engine.FieldError(f+".function.name", "is required")
		}
		if len(c.ExtraContent) > 0 && engine.JSONKind(c.ExtraContent) != "object" {
			return nil, engine.FieldError(f+".extra_content", "must be a JSON object (echo it as the response gave it), got %s", engine.JSONKind(c.ExtraContent))
		}
	}
	return calls, nil
}

// agentTools validates caller-defined tools: type function, a well-formed
// unique name, and parameters that are a JSON object when given.
func agentTools(raws []json.RawMessage) ([]engine.Tool, error) {
	if len(raws) == 0 {
		return nil, nil
	}
	tools := make([]engine.Tool, 0, len(raws))
	seen := map[string]bool{}
	for i, raw := range raws {
		f := fmt.Sprintf("tools[%d]", i)
		var t engine.Tool
		if engine.JSONKind(raw) != "object" || json.Unmarshal(raw, &t) != nil {
			return nil, engine.FieldError(f, "must be a tool object {type: function, function: {name, description, parameters}}")
		}
		if t.Type != "function" {
			return nil, engine.FieldError(f+".type", "must be function, got %q", t.Type)
		}
		if !engine.ValidToolName(t.Function.Name) {
			return nil, engine.FieldError(f+".function.name", "must be 1-64 characters of a-z, A-Z, 0-9, '_' or '-', got %q", t.Function.Name)
		}
		if seen[t.Function.Name] {
			return nil, engine.FieldError(f+".function.name", "duplicates the tool name %q", t.Function.Name)
		}
		seen[t.Function.Name] = true
		if p := t.Function.Parameters; !isNull(p) && engine.JSONKind(p) != "object" {
			return nil, engine.FieldError(f+".function.parameters", "must be a JSON Schema object, got %s", engine.JSONKind(p))
		}
		if isNull(t.Function.Parameters) {
			t.Function.Parameters = nil
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// agentToolChoice reads "auto" | "required" | "none" | {type: function,
// function: {name}}.
func agentToolChoice(raw json.RawMessage) (*engine.ToolChoice, error) {
	switch engine.JSONKind(raw) {
	case "null":
		return nil, nil
	case "string":
		var s string
		json.Unmarshal(raw, &s)
		switch s {
		case "auto", "required", "none":
			return &engine.ToolChoice{Mode: s}, nil
		}
		return nil, engine.FieldError("tool_choice", "must be auto, required, none or {type: function, function: {name}}, got %q", s)
	case "object":
		var o struct {
			Type     string `json:"type"`
			Function *struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if json.Unmarshal(raw, &o) != nil {
			return nil, engine.FieldError("tool_choice", "must be {type: function, function: {name}}")
		}
		if o.Type != "function" {
			return nil, engine.FieldError("tool_choice.type", "must be function, got %q", o.Type)
		}
		if o.Function == nil || o.Function.Name == "" {
			return nil, engine.FieldError("tool_choice.function.name", "is required")
		}
		return &engine.ToolChoice{Function: o.Function.Name}, nil
	}
	return nil, engine.FieldError("tool_choice", "must be a string or an object, got %s", engine.JSONKind(raw))
}

// numberInRange applies a default and checks a [lo, hi] range.
func numberInRange(field string, v *float64, lo, hi, def float64) (*float64, error) {
	x, err := numberValue(field, v, lo, hi, def)
	if err != nil {
		return nil, err
	}
	return &x, nil
}

// numberValue is numberInRange's value.
func numberValue(field string, v *float64, lo, hi, def float64) (float64, error) {
	if v == nil {
		return def, nil
	}
	if math.IsNaN(*v) || *v < lo || *v > hi {
		return 0, engine.FieldError(field, "must be between %g and %g, got %g", lo, hi, *v)
	}
	return *v, nil
}

// agentMaxTokens reads max_tokens, or max_completion_tokens (OpenAI's newer
// name), which wins when both are sent.
func agentMaxTokens(maxTokens, maxCompletion *float64) (*int, error) {
	n, err := agentMaxTokensValue(maxTokens, maxCompletion)
	if err != nil {
		return nil, err
	}
	return &n, nil
}

// agentMaxTokensValue is agentMaxTokens' value.
func agentMaxTokensValue(maxTokens, maxCompletion *float64) (int, error) {
	field, v := "max_tokens", maxTokens
	if maxCompletion != nil {
		field, v = "max_completion_tokens", maxCompletion
	}
	n := AgentDefaultMaxTokens
	if v != nil {
		if *v != math.Trunc(*v) || *v < 1 || *v > math.MaxInt32 {
			return 0, engine.FieldError(field, "must be a positive integer, got %g", *v)
		}
		n = int(*v)
	}
	return n, nil
}

// agentStop reads up to four stop sequences (a single string is accepted
// as one sequence).
func agentStop(raw json.RawMessage) ([]string, error) {
	kind := engine.JSONKind(raw)
	if kind == "null" {
		return nil, nil
	}
	var stop []string
	switch kind {
	case "string":
		var s string
		json.Unmarshal(raw, &s)
		stop = []string{s}
	case "array":
		if json.Unmarshal(raw, &stop) != nil {
			return nil, engine.FieldError("stop", "must be an array of strings")
		}
	default:
		return nil, engine.FieldError("stop", "must be an array of strings, got %s", kind)
	}
	if len(stop) > agentMaxStop {
		return nil, engine.FieldError("stop", "may hold at most %d sequences, got %d", agentMaxStop, len(stop))
	}
	for i, s := range stop {
		if s == "" {
			return nil, engine.FieldError(fmt.Sprintf("stop[%d]", i), "must not be empty")
		}
	}
	if len(stop) == 0 {
		return nil, nil
	}
	return stop, nil
}

// agentResponseFormat reads {type: text | json_object | json_schema} with
// a named schema for json_schema.
func agentResponseFormat(raw json.RawMessage) (*engine.ResponseFormat, error) {
	switch engine.JSONKind(raw) {
	case "null":
		return nil, nil
	case "object":
	default:
		return nil, engine.FieldError("response_format", "must be an object {type}, got %s", engine.JSONKind(raw))
	}
	var rf engine.ResponseFormat
	if json.Unmarshal(raw, &rf) != nil {
		return nil, engine.FieldError("response_format", "must be {type: text | json_object | json_schema, json_schema?}")
	}
	switch rf.Type {
	case "text", "json_object":
		rf.JSONSchema = nil
	case "json_schema":
		if rf.JSONSchema == nil {
			return nil, engine.FieldError("response_format.json_schema", "is required when type is json_schema")
		}
		if !engine.ValidToolName(rf.JSONSchema.Name) {
			return nil, engine.FieldError("response_format.json_schema.name", "must be 1-64 characters of a-z, A-Z, 0-9, '_' or '-', got %q", rf.JSONSchema.Name)
		}
		if s := rf.JSONSchema.Schema; !isNull(s) && engine.JSONKind(s) != "object" {
			return nil, engine.FieldError("response_format.json_schema.schema", "must be a JSON Schema object")
		}
	case "":
		return nil, engine.FieldError("response_format.type", "is required (text, json_object or json_schema)")
	default:
		return nil, engine.FieldError("response_format.type", "must be text, json_object or json_schema, got %q", rf.Type)
	}
	return &rf, nil
}

// reservedMCPHeaders may not be set through custom_headers: they belong to
// the HTTP or MCP transport (the bearer token has its own field).
var reservedMCPHeaders = map[string]bool{
	"host": true, "content-length": true, "content-type": true, "connection": true, "transfer-encoding": true,
	"upgrade": true, "te": true, "trailer": true, "keep-alive": true, "proxy-authorization": true, "proxy-connection": true,
	"accept": true, "mcp-session-id": true, "mcp-protocol-version": true, "last-event-id": true,
}

// validateMCPServers checks the shape of mcp_servers; reachability is
// checked when connecting.
func validateMCPServers(servers []engine.MCPServer) error {
	seen := map[string]bool{}
	for i, s := range servers {
		f := fmt.Sprintf("mcp_servers[%d]", i)
		if !mcpServerNameRE.MatchString(s.Name) {
			return engine.FieldError(f+".name", "must be 1-64 characters of a-z, A-Z, 0-9, '_' or '-', starting with a letter or digit, got %q", s.Name)
		}
		if seen[s.Name] {
			return engine.FieldError(f+".name", "duplicates the MCP server name %q", s.Name)
		}
		seen[s.Name] = true
		if s.Type != "url" {
			return engine.FieldError(f+".type", "must be url, got %q", s.Type)
		}
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return engine.FieldError(f+".url", "must be an absolute http(s) URL")
		}
		if u.User != nil {
			return engine.FieldError(f+".url", "may not carry credentials; use authorization_token or custom_headers")
		}
		if err := engine.CheckHeaderValue(f+".authorization_token", s.AuthorizationToken); err != nil {
			return err
		}
		if tc := s.ToolConfiguration; tc != nil {
			for j, name := range tc.AllowedTools {
				if name == "" {
					return engine.FieldError(fmt.Sprintf("%s.tool_configuration.allowed_tools[%d]", f, j), "must not be empty")
				}
			}
		}
		for k, v := range s.CustomHeaders {
			hf := f + ".custom_headers"
			if !validHeaderName(k) {
				return engine.FieldError(hf, "%q is not a valid header name", k)
			}
			if reservedMCPHeaders[strings.ToLower(k)] {
				return engine.FieldError(hf, "may not set %q", k)
			}
			if strings.EqualFold(k, "authorization") && s.AuthorizationToken != "" {
				return engine.FieldError(hf, "sets Authorization and authorization_token is also given; use one")
			}
			if err := engine.CheckHeaderValue(hf+"."+k, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// validHeaderName reports whether s is an RFC 7230 token.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r >= 0x7f || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return true
}
