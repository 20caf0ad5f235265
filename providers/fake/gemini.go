package fake

import (
	"crypto/rand"
	"encoding/json"
	"net/http"
	"strings"
)

// NewGemini starts a fake Gemini API: models/{m}:generateContent,
// :streamGenerateContent?alt=sse (events separated by \r\n\r\n, no end
// marker, finishReason and usageMetadata on the last event) and
// :batchEmbedContents. BaseURL ends in /v1beta. Chat requests are checked
// as the real API checks them for the model named (gemini_check.go);
// Gemini 3 models sign their function calls and require the signature
// back on the next step.
func NewGemini() *Server { return newServer("gemini", "/v1beta", handleGemini) }

type gemReq struct {
	GenerationConfig *struct {
		ResponseMimeType string `json:"responseMimeType"`
		MaxOutputTokens  *int   `json:"maxOutputTokens"`
		ThinkingConfig   *struct {
			ThinkingBudget *int   `json:"thinkingBudget"`
			ThinkingLevel  string `json:"thinkingLevel"`
		} `json:"thinkingConfig"`
	} `json:"generationConfig"`
	Requests []struct {
		Content struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"content"`
	} `json:"requests"`
}

func handleGemini(s *Server, w http.ResponseWriter, r *http.Request, body []byte, rep Reply) {
	if rep.Status >= 400 {
		status := map[int]string{400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
			404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}[rep.Status]
		e := map[string]any{"code": rep.Status, "message": errorMessage(rep), "status": status}
		var details []any
		if rep.QuotaID != "" {
			details = append(details, map[string]any{"@type": "type.googleapis.com/google.rpc.QuotaFailure",
				"violations": []any{map[string]any{"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests", "quotaId": rep.QuotaID}}})
		}
		if rep.RetryDelay != "" {
			details = append(details, map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": rep.RetryDelay})
		}
		if details != nil {
			e["details"] = details
		}
		writeError(w, rep, map[string]any{"error": e})
		return
	}
	var req gemReq
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, 400, map[string]any{"error": map[string]any{"code": 400, "message": "Invalid JSON payload", "status": "INVALID_ARGUMENT"}})
		return
	}
	path := r.URL.Path
	model := path[strings.LastIndex(path, "/")+1:]
	model, method, _ := strings.Cut(model, ":")
	if method == "generateContent" || method == "streamGenerateContent" {
		msg := checkGeminiFields(body)
		if msg == "" {
			msg = s.checkGemini(model, body)
		}
		if msg == "" {
			msg = checkFunctionResponses(model, body)
		}
		if msg != "" {
			writeJSON(w, 400, map[string]any{"error": map[string]any{"code": 400, "message": msg, "status": "INVALID_ARGUMENT"}})
			return
		}
	}
	wantJSON := req.GenerationConfig != nil && req.GenerationConfig.ResponseMimeType == "application/json"
	u := rep.usage()
	usage := map[string]int{"promptTokenCount": u.PromptTokens, "candidatesTokenCount": u.CompletionTokens, "totalTokenCount": u.PromptTokens + u.CompletionTokens}
	finish := "STOP"
	if rep.Finish != "" {
		finish = rep.Finish
	}
	starved := false
	if thoughts, limit := req.thinking(model); thoughts > 0 && limit != nil && thoughts >= *limit {
		starved = true
		// The thinking spent the whole output budget: no answer is left.
		rep = Reply{Text: "", ToolCalls: nil, Truncate: rep.Truncate}
		finish = "MAX_TOKENS"
		usage = map[string]int{"promptTokenCount": u.PromptTokens, "thoughtsTokenCount": *limit, "totalTokenCount": u.PromptTokens + *limit}
	}
	calls := func() []any {
		var parts []any
		for i, c := range rep.ToolCalls {
			fc := map[string]any{"name": c.Name, "args": json.RawMessage(c.args())}
			if gemini3(model) {
				fc["id"] = gemCallID()
			}
			part := map[string]any{"functionCall": fc}
			if i == 0 && gemini3(model) {
				part["thoughtSignature"] = s.gemSignature(c.Name)
			}
			parts = append(parts, part)
		}
		return parts
	}
	resp := func(parts []any, withFinish bool) map[string]any {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
		m := map[string]any{"candidates": []any{cand}, "modelVersion": model, "responseId": "fake-response"}
		if withFinish {
			cand["finishReason"] = finish
			m["usageMetadata"] = usage
		}
		return m
	}
	switch method {
	case "generateContent":
		var parts []any
		if starved {
			parts = []any{}
		} else if t := rep.text(wantJSON); t != "" {
			parts = append(parts, map[string]any{"text": t})
		}
		writeJSON(w, 200, resp(append(parts, calls()...), true))
	case "streamGenerateContent":
		out := newSSE(w, r, rep, "\r\n\r\n")
		text := rep.text(wantJSON)
		if starved {
			text = ""
		}
		for _, piece := range words(text) {
			if !out.send("", resp([]any{map[string]any{"text": piece}}, false)) {
				return
			}
		}
		if cs := calls(); len(cs) > 0 && !out.send("", resp(cs, false)) {
			return
		}
		if rep.Truncate {
			return
		}
		out.send("", resp([]any{map[string]any{"text": ""}}, true))
	case "batchEmbedContents":
		embs := make([]any, len(req.Requests))
		for i, q := range req.Requests {
			text := ""
			if len(q.Content.Parts) > 0 {
				text = q.Content.Parts[0].Text
			}
			embs[i] = map[string]any{"values": vector(text, rep.EmbedDims)}
		}
		writeJSON(w, 200, map[string]any{"embeddings": embs})
	default:
		writeJSON(w, 404, map[string]any{"error": map[string]any{"code": 404, "message": "method not found", "status": "NOT_FOUND"}})
	}
}

// thinking is how many thinking tokens the request spends and its
// maxOutputTokens (nil when unset).
func (r gemReq) thinking(model string) (int, *int) {
	g := r.GenerationConfig
	if g == nil {
		return gemThoughtTokens(model, nil, ""), nil
	}
	var budget *int
	level := ""
	if tc := g.ThinkingConfig; tc != nil {
		budget, level = tc.ThinkingBudget, tc.ThinkingLevel
	}
	return gemThoughtTokens(model, budget, level), g.MaxOutputTokens
}

// gemCallID is a Gemini 3 function call id: eight random letters and digits.
func gemCallID() string {
	const abc = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 8)
	rand.Read(b)
	for i := range b {
		b[i] = abc[int(b[i])%len(abc)]
	}
	return string(b)
}
