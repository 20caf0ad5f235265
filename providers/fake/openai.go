package fake

import (
	"crypto/rand"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// NewOpenAI starts a fake OpenAI chat completions / embeddings /
// moderations server. It also stands in for every OpenAI-compatible host
// (groq, mistral, ollama, ...): routes match by path suffix, so any base
// path works. BaseURL ends in /v1. It checks requests as OpenAI does
// (openai_rules.go).
func NewOpenAI() *Server { return NewOpenAIHost("openai") }

// NewOpenAIHost starts the fake as one OpenAI-compatible host ("openai",
// "xai", "groq", "mistral", "perplexity"; any other name checks only what
// every host checks): requests are checked against that host's rules and
// errors come in its shape. The openai, mistral and groq hosts refuse unknown
// fields at any depth (strict.go); mistral also checks tool call ids,
// issues nine-character ones and answers reasoning as content chunks.
// NewDeepSeek is the DeepSeek host.
func NewOpenAIHost(host string) *Server {
	s := newServer("openai", "/v1", handleOpenAI)
	s.host = host
	return s
}

type oaiReq struct {
	Model          string `json:"model"`
	Stream         bool   `json:"stream"`
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Input json.RawMessage `json:"input"`
	// Dimensions shortens embeddings, as OpenAI's text-embedding-3-* do.
	Dimensions int `json:"dimensions"`
}

func handleOpenAI(s *Server, w http.ResponseWriter, r *http.Request, body []byte, rep Reply) {
	if rep.Status >= 400 {
		typ := "invalid_request_error"
		switch rep.Status {
		case 401:
			typ = "authentication_error"
		case 429:
			typ = "rate_limit_exceeded"
		case 500, 502, 503:
			typ = "server_error"
		}
		if rep.ErrorCode != "" {
			typ = rep.ErrorCode
		}
		writeError(w, rep, map[string]any{"error": map[string]any{"message": errorMessage(rep), "type": typ, "param": nil, "code": nilIfEmpty(rep.ErrorCode)}})
		return
	}
	var req oaiReq
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, 400, map[string]any{"error": map[string]any{"message": "We could not parse the JSON body of your request.", "type": "invalid_request_error"}})
		return
	}
	switch {
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
		if e := s.checkOpenAIChat(body); e != nil {
			s.writeOpenAIError(w, rep, e)
			return
		}
		wantJSON := req.ResponseFormat != nil && (req.ResponseFormat.Type == "json_object" || req.ResponseFormat.Type == "json_schema")
		if req.Stream {
			openAIStream(w, r, req, rep, wantJSON, s.host)
		} else {
			openAIChat(w, req, rep, wantJSON, s.host)
		}
	case strings.HasSuffix(r.URL.Path, "/embeddings"):
		var inputs []string
		if json.Unmarshal(req.Input, &inputs) != nil {
			var one string
			json.Unmarshal(req.Input, &one)
			inputs = []string{one}
		}
		if e := s.checkEmbeddings(inputs); e != nil {
			s.writeOpenAIError(w, rep, e)
			return
		}
		dims := rep.EmbedDims
		if req.Dimensions > 0 {
			if !strings.HasPrefix(req.Model, "text-embedding-3") {
				s.writeOpenAIError(w, rep, &apiError{status: 400, msg: "This model does not support specifying dimensions.", param: "dimensions"})
				return
			}
			dims = req.Dimensions
		}
		data := make([]map[string]any, len(inputs))
		for i, in := range inputs {
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": vector(in, dims)}
		}
		writeJSON(w, 200, map[string]any{"object": "list", "data": data, "model": req.Model,
			"usage": map[string]int{"prompt_tokens": len(inputs), "total_tokens": len(inputs)}})
	case strings.HasSuffix(r.URL.Path, "/moderations"):
		var inputs []string
		if json.Unmarshal(req.Input, &inputs) != nil {
			inputs = []string{""}
		}
		results := make([]map[string]any, len(inputs))
		for i := range inputs {
			results[i] = map[string]any{"flagged": rep.Flagged, "categories": map[string]bool{"harassment": rep.Flagged, "violence": false}}
		}
		writeJSON(w, 200, map[string]any{"id": "modr-fake", "model": "omni-moderation-latest", "results": results})
	default:
		writeJSON(w, 404, map[string]any{"error": map[string]any{"message": "Unknown request URL: " + r.URL.Path, "type": "invalid_request_error"}})
	}
}

func openAIUsage(u Usage) map[string]any {
	return map[string]any{"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens, "total_tokens": u.PromptTokens + u.CompletionTokens}
}

func openAIFinish(rep Reply) string {
	switch {
	case rep.Finish != "":
		return rep.Finish
	case len(rep.ToolCalls) > 0:
		return "tool_calls"
	}
	return "stop"
}

// addSources adds Perplexity's top-level web sources to an answer body.
func addSources(body map[string]any, rep Reply, host string) map[string]any {
	if host != "perplexity" || len(rep.Citations) == 0 {
		return body
	}
	results := make([]any, len(rep.Citations))
	for i, u := range rep.Citations {
		results[i] = map[string]any{"title": "Source " + string(rune('1'+i)), "url": u, "date": "2026-01-0" + string(rune('1'+i%9))}
	}
	body["citations"], body["search_results"] = rep.Citations, results
	return body
}

func openAIChat(w http.ResponseWriter, req oaiReq, rep Reply, wantJSON bool, host string) {
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil, "annotations": []any{}}
	if t := rep.text(wantJSON); t != "" {
		msg["content"] = t
	}
	if rep.Reasoning != "" {
		msg["reasoning_content"] = rep.Reasoning
	}
	if chunked(host, req.Model, &rep) {
		delete(msg, "reasoning_content")
		msg["content"] = append(thinkingChunk(rep.Reasoning), textChunks(rep.text(wantJSON))...)
	}
	if len(rep.ToolCalls) > 0 {
		calls := make([]map[string]any, len(rep.ToolCalls))
		for i, tc := range rep.ToolCalls {
			calls[i] = map[string]any{"id": hostCallID(host, tc, i), "type": "function", "function": map[string]any{"name": tc.Name, "arguments": tc.args()}}
		}
		msg["tool_calls"] = calls
	}
	writeJSON(w, 200, addSources(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion", "created": time.Now().Unix(),
		"model": req.Model, "system_fingerprint": nil,
		"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": openAIFinish(rep)}},
		"usage":   openAIUsage(rep.usage())}, rep, host))
}

func openAIStream(w http.ResponseWriter, r *http.Request, req oaiReq, rep Reply, wantJSON bool, host string) {
	out := newSSE(w, r, rep, "\n\n")
	created := time.Now().Unix()
	chunk := func(delta map[string]any, finish any) map[string]any {
		return addSources(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"system_fingerprint": nil, "choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}}, rep, host)
	}
	if !out.send("", chunk(map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil)) {
		return
	}
	arrays := chunked(host, req.Model, &rep)
	for _, piece := range words(rep.Reasoning) {
		d := map[string]any{"reasoning_content": piece}
		if arrays {
			d = map[string]any{"content": thinkingChunk(piece)}
		}
		if !out.send("", chunk(d, nil)) {
			return
		}
	}
	for _, piece := range words(rep.text(wantJSON)) {
		d := map[string]any{"content": piece}
		if arrays {
			d = map[string]any{"content": textChunks(piece)}
		}
		if !out.send("", chunk(d, nil)) {
			return
		}
	}
	for i, tc := range rep.ToolCalls {
		first := map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": hostCallID(host, tc, i), "type": "function",
			"function": map[string]any{"name": tc.Name, "arguments": ""}}}}
		if !out.send("", chunk(first, nil)) {
			return
		}
		for _, part := range halves(tc.args()) {
			d := map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": part}}}}
			if !out.send("", chunk(d, nil)) {
				return
			}
		}
	}
	if rep.Truncate {
		return
	}
	last := chunk(map[string]any{}, openAIFinish(rep))
	if host == "mistral" {
		// Mistral reports usage on the chunk that finishes the answer,
		// without stream_options.
		last["usage"] = openAIUsage(rep.usage())
	}
	if !out.send("", last) {
		return
	}
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		u := map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"system_fingerprint": nil, "choices": []any{}, "usage": openAIUsage(rep.usage())}
		if !out.send("", u) {
			return
		}
	}
	out.send("", "[DONE]")
}

// chunked reports whether a Mistral-mode answer comes as content chunks:
// magistral models always reason, and the reasoning modes of the other
// models (a Reply with Reasoning) answer the same way. A magistral reply
// without Reasoning gets a default one.
func chunked(host, model string, rep *Reply) bool {
	if host != "mistral" {
		return false
	}
	if strings.HasPrefix(model, "magistral") && rep.Reasoning == "" {
		rep.Reasoning = "Let me think this through."
	}
	return rep.Reasoning != ""
}

// thinkingChunk is Mistral's thinking chunk of text.
func thinkingChunk(text string) []any {
	if text == "" {
		return []any{}
	}
	return []any{map[string]any{"type": "thinking", "thinking": []any{map[string]any{"type": "text", "text": text}}}}
}

// textChunks is Mistral's text chunk of text.
func textChunks(text string) []any {
	if text == "" {
		return []any{}
	}
	return []any{map[string]any{"type": "text", "text": text}}
}

// hostCallID is the id of the reply's i-th tool call: the Reply's, or
// call_<letter>; a Mistral-mode server issues nine random letters and
// digits unless the Reply's id has that shape.
func hostCallID(host string, tc ToolCall, i int) string {
	if host != "mistral" || mistralID.MatchString(tc.ID) {
		return tc.id(i)
	}
	const abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 9)
	rand.Read(b)
	for j := range b {
		b[j] = abc[int(b[j])%len(abc)]
	}
	return string(b)
}
