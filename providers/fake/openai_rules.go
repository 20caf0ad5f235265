package fake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// This file is the fake's own copy of what the OpenAI-wire hosts reject,
// written from each host's documentation independently of the adapters'
// table (providers/params.go), so a mistake made in one place shows up as
// a failing test instead of passing twice.

// oaiCheck rejects chat requests to the models of one host that match a
// regular expression.
type oaiCheck struct {
	host  string
	model *regexp.Regexp
	// rejects are top-level body fields the models refuse.
	rejects []string
	// efforts are the reasoning_effort values the models accept; nil
	// means reasoning_effort itself is refused.
	efforts []string
	// maxTokensName, when set, is the only output-limit field accepted
	// (OpenAI reasoning models refuse max_tokens).
	maxTokensName string
	// tools says which reasoning_effort function tools allow: "none" (only
	// an explicit "none"), "none-or-unset" (no effort, or "none"), or ""
	// (any).
	tools string
}

var (
	oaiReasoningRejects = []string{"temperature", "top_p", "presence_penalty", "frequency_penalty", "stop"}
	xaiReasoningRejects = []string{"presence_penalty", "frequency_penalty", "stop"}
)

var oaiChecks = []oaiCheck{
	// https://platform.openai.com/docs/guides/reasoning: reasoning models
	// take max_completion_tokens and no sampling parameters or stop.
	{host: "openai", model: regexp.MustCompile(`^gpt-5-chat`), efforts: nil},
	// GPT-6 (September 2026) and gpt-5.5/5.6 take function tools on chat
	// completions only with reasoning_effort "none"; gpt-5.2 and gpt-5.4
	// refuse any other explicit effort with tools ("Function tools with
	// reasoning_effort are not supported for <model> in
	// /v1/chat/completions").
	{host: "openai", model: regexp.MustCompile(`^gpt-6`), efforts: []string{"none", "low", "medium", "high", "xhigh"},
		rejects: oaiReasoningRejects, maxTokensName: "max_completion_tokens", tools: "none"},
	{host: "openai", model: regexp.MustCompile(`^gpt-5\.[56]`), efforts: []string{"none", "low", "medium", "high", "xhigh"},
		rejects: oaiReasoningRejects, maxTokensName: "max_completion_tokens", tools: "none"},
	{host: "openai", model: regexp.MustCompile(`^gpt-5\.[24]`), efforts: []string{"none", "low", "medium", "high", "xhigh"},
		rejects: oaiReasoningRejects, maxTokensName: "max_completion_tokens", tools: "none-or-unset"},
	{host: "openai", model: regexp.MustCompile(`^gpt-5\.\d`), efforts: []string{"none", "low", "medium", "high", "xhigh"},
		rejects: oaiReasoningRejects, maxTokensName: "max_completion_tokens"},
	{host: "openai", model: regexp.MustCompile(`^gpt-5`), efforts: []string{"minimal", "low", "medium", "high"},
		rejects: oaiReasoningRejects, maxTokensName: "max_completion_tokens"},
	// The o-series refuses parallel_tool_calls ("Unsupported parameter:
	// 'parallel_tool_calls' is not supported with this model").
	{host: "openai", model: regexp.MustCompile(`^o[134](-|$)`), efforts: []string{"low", "medium", "high"},
		rejects: append(append([]string(nil), oaiReasoningRejects...), "parallel_tool_calls"), maxTokensName: "max_completion_tokens"},
	{host: "openai", model: regexp.MustCompile(`^gpt-`), efforts: nil},
	// https://docs.x.ai/docs/guides/reasoning
	{host: "xai", model: regexp.MustCompile(`non-reasoning`), efforts: nil},
	{host: "xai", model: regexp.MustCompile(`^grok-3-mini`), efforts: []string{"low", "high"}, rejects: xaiReasoningRejects},
	{host: "xai", model: regexp.MustCompile(`^grok-4\.3`), efforts: []string{"none", "low", "medium", "high"}, rejects: xaiReasoningRejects},
	// grok-4.5 and later take low, medium and high; their reasoning cannot
	// be switched off (https://docs.x.ai/developers/grok-4-5).
	{host: "xai", model: regexp.MustCompile(`^grok-4\.[5-9]`), efforts: []string{"low", "medium", "high"}, rejects: xaiReasoningRejects},
	{host: "xai", model: regexp.MustCompile(`^grok-(4|code|build)`), efforts: nil, rejects: xaiReasoningRejects},
	{host: "xai", model: regexp.MustCompile(`^grok-3`), efforts: nil},
	// https://console.groq.com/docs/reasoning
	{host: "groq", model: regexp.MustCompile(`^openai/gpt-oss`), efforts: []string{"low", "medium", "high"}},
	{host: "groq", model: regexp.MustCompile(`^qwen/qwen3`), efforts: []string{"none", "default"}},
	{host: "groq", model: regexp.MustCompile(`.`), efforts: nil},
	// https://api-docs.deepseek.com/guides/thinking_mode: the requested
	// effort is mapped (minimal and low to low, medium to high, ...);
	// "none" is no effort (thinking is switched off with thinking.type).
	{host: "deepseek", model: regexp.MustCompile(`^deepseek-(v4|flash)`), efforts: []string{"minimal", "low", "medium", "high", "xhigh", "max", "ultra"}},
	// Perplexity has no function calling.
	{host: "perplexity", model: regexp.MustCompile(`.`), efforts: nil, rejects: []string{"tools", "tool_choice"}},
}

// apiError is one rejection in a host's error shape.
type apiError struct {
	status int
	param  string
	msg    string
	code   string
}

// checkOpenAIChat validates a chat completions body for s's host.
func (s *Server) checkOpenAIChat(body []byte) *apiError {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return &apiError{status: 400, msg: "We could not parse the JSON body of your request."}
	}
	var model string
	json.Unmarshal(m["model"], &model)
	if model == "" {
		return &apiError{status: 400, param: "model", msg: "you must provide a model parameter"}
	}
	if f := hostChatFields[s.host]; f != nil {
		if p := s.unknownFieldOf(body, func(b []byte) string { return f.unknownField("", b) }); p != "" {
			switch s.host {
			case "openai":
				return &apiError{status: 400, param: p, code: "unknown_parameter", msg: fmt.Sprintf("Unrecognized request argument supplied: %s", p)}
			case "groq":
				return &apiError{status: 400, param: p, msg: fmt.Sprintf("property '%s' is unsupported", p[strings.LastIndex(p, ".")+1:])}
			}
			return &apiError{status: 422, param: p, code: "extra_forbidden", msg: "Extra inputs are not permitted: body." + p}
		}
	}
	if e := checkMessages(m["messages"]); e != nil {
		return e
	}
	if s.host == "mistral" {
		if e := checkMistralIDs(m["messages"]); e != nil {
			return e
		}
	}
	if _, ok := m["stream_options"]; ok && string(m["stream"]) != "true" {
		return &apiError{status: 400, param: "stream_options", msg: "The 'stream_options' parameter is only allowed when 'stream' is enabled."}
	}
	s.mu.Lock()
	checks := append(append([]oaiCheck(nil), s.modelChecks...), oaiChecks...)
	s.mu.Unlock()
	for _, c := range checks {
		if c.host != s.host || !c.model.MatchString(model) {
			continue
		}
		for _, p := range c.rejects {
			if _, ok := m[p]; ok {
				return &apiError{status: 400, param: p, code: "unsupported_parameter",
					msg: fmt.Sprintf("Unsupported parameter: '%s' is not supported with this model.", p)}
			}
		}
		if c.maxTokensName != "" {
			if _, ok := m["max_tokens"]; ok {
				return &apiError{status: 400, param: "max_tokens", code: "unsupported_parameter",
					msg: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."}
			}
		}
		var effort string
		raw, hasEffort := m["reasoning_effort"]
		if hasEffort {
			json.Unmarshal(raw, &effort)
		}
		if tools := m["tools"]; c.tools != "" && len(tools) > 2 && string(tools) != "null" {
			if (c.tools == "none" && effort != "none") || (c.tools == "none-or-unset" && hasEffort && effort != "none") {
				return &apiError{status: 400, param: "reasoning_effort", code: "unsupported_value",
					msg: fmt.Sprintf("Function tools with reasoning_effort are not supported for %s in /v1/chat/completions. To use function tools, use /v1/responses or set reasoning_effort to 'none'.", model)}
			}
		}
		if hasEffort {
			e := effort
			if c.efforts == nil {
				return &apiError{status: 400, param: "reasoning_effort", code: "unsupported_parameter",
					msg: fmt.Sprintf("Model %s does not support parameter reasoningEffort.", model)}
			}
			if !contains(c.efforts, e) {
				return &apiError{status: 400, param: "reasoning_effort", code: "unsupported_value",
					msg: fmt.Sprintf("Unsupported value: 'reasoning_effort' does not support '%s' with this model. Supported values are: %s.", e, strings.Join(c.efforts, ", "))}
			}
		}
		break
	}
	return nil
}

// checkMessages enforces the conversation rules every OpenAI-wire host
// applies: a tool message answers a tool call of the assistant message
// before it, and every tool call is answered before the next turn.
func checkMessages(raw json.RawMessage) *apiError {
	var msgs []struct {
		Role       string `json:"role"`
		ToolCallID string `json:"tool_call_id"`
		ToolCalls  []struct {
			ID string `json:"id"`
		} `json:"tool_calls"`
	}
	if json.Unmarshal(raw, &msgs) != nil || len(msgs) == 0 {
		return &apiError{status: 400, param: "messages", msg: "'messages' must contain at least one message."}
	}
	open := map[string]bool{}
	for i, m := range msgs {
		switch m.Role {
		case "tool":
			if !open[m.ToolCallID] {
				return &apiError{status: 400, param: fmt.Sprintf("messages.[%d].role", i),
					msg: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."}
			}
			delete(open, m.ToolCallID)
		default:
			if len(open) > 0 {
				return &apiError{status: 400, param: "messages",
					msg: "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'."}
			}
			for _, tc := range m.ToolCalls {
				open[tc.ID] = true
			}
		}
	}
	return nil
}

// writeOpenAIError answers e in the shape of s's host.
func (s *Server) writeOpenAIError(w http.ResponseWriter, rep Reply, e *apiError) {
	switch s.host {
	case "xai":
		// xAI answers {"code": "...", "error": "..."}.
		writeError(w, Reply{Status: e.status, RetryAfter: rep.RetryAfter}, map[string]any{"code": "Client specified an invalid argument", "error": e.msg})
	case "mistral":
		typ := "invalid_request_error"
		if e.code == "3210" {
			typ = "invalid_request_prompt"
		}
		writeError(w, Reply{Status: e.status, RetryAfter: rep.RetryAfter}, map[string]any{"object": "error", "message": e.msg,
			"type": typ, "param": nilIfEmpty(e.param), "code": nilIfEmpty(e.code)})
	default:
		typ := "invalid_request_error"
		if e.status == 429 {
			typ = "rate_limit_exceeded"
			if e.code != "" {
				typ = e.code
			}
		}
		writeError(w, Reply{Status: e.status, RetryAfter: rep.RetryAfter}, map[string]any{"error": map[string]any{
			"message": e.msg, "type": typ, "param": nilIfEmpty(e.param), "code": nilIfEmpty(e.code)}})
	}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// embedTokenCaps is the most tokens one /embeddings request may carry,
// summed over its inputs. Mistral answers code 3210 past 16384
// (https://github.com/chroma-core/chroma/pull/5597 quotes the error);
// OpenAI caps a request at 300,000 tokens
// (https://platform.openai.com/docs/api-reference/embeddings/create).
var embedTokenCaps = map[string]int{"mistral": 16384, "openai": 300000}

// checkEmbeddings refuses an /embeddings request over the host's cap.
func (s *Server) checkEmbeddings(inputs []string) *apiError {
	limit := embedTokenCaps[s.host]
	if limit == 0 {
		return nil
	}
	total := 0
	for _, in := range inputs {
		total += countTokens(in)
	}
	if total <= limit {
		return nil
	}
	if s.host == "mistral" {
		return &apiError{status: 400, code: "3210", msg: "Too many tokens overall, split into more batches."}
	}
	return &apiError{status: 400, param: "input", msg: fmt.Sprintf("Requested %d tokens, max %d tokens per request", total, limit)}
}

// countTokens approximates a BPE tokenizer: one token per run of letters
// or digits and one per other non-space character.
func countTokens(s string) int {
	n, inWord := 0, false
	for _, r := range s {
		word := r == '_' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') || r > 127
		switch {
		case word && !inWord:
			n++
		case !word && r != ' ' && r != '\n' && r != '\t':
			n++
		}
		inWord = word
	}
	return n
}

// mistralID is the shape of a tool call id Mistral accepts.
var mistralID = regexp.MustCompile(`^[a-zA-Z0-9]{9}$`)

// checkMistralIDs refuses tool call ids Mistral does not accept, with its
// message.
func checkMistralIDs(raw json.RawMessage) *apiError {
	var msgs []struct {
		ToolCallID *string `json:"tool_call_id"`
		ToolCalls  []struct {
			ID string `json:"id"`
		} `json:"tool_calls"`
	}
	json.Unmarshal(raw, &msgs)
	for _, m := range msgs {
		ids := []string{}
		if m.ToolCallID != nil {
			ids = append(ids, *m.ToolCallID)
		}
		for _, tc := range m.ToolCalls {
			ids = append(ids, tc.ID)
		}
		for _, id := range ids {
			if !mistralID.MatchString(id) {
				return &apiError{status: 400, code: "3230", msg: fmt.Sprintf("Tool call id was %s but must be a-z, A-Z, 0-9, with a length of 9.", id)}
			}
		}
	}
	return nil
}
