package providers

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// Google is the adapter for the Gemini API (generateContent,
// streamGenerateContent with alt=sse, batchEmbedContents).
//
// Mapping: system/developer messages become systemInstruction; assistant
// messages are role "model"; tool calls become functionCall parts (with
// their thoughtSignature, kept in the call's extra_content) and tool
// messages functionResponse parts (the function name is looked up from the
// earlier tool call); both carry the call's id, by which Gemini 3 pairs
// parallel calls and their responses. Tool and response schemas are sent
// as full JSON Schema (parametersJsonSchema, responseJsonSchema).
// tool_choice required -> mode ANY, a forced function -> ANY with
// allowedFunctionNames. json_object/json_schema set responseMimeType
// application/json. Penalties and parallel_tool_calls are dropped;
// reasoning_effort, temperature and the output budget of thinking models
// follow the model's rule in gemRules; a "seed" custom model parameter
// goes into generationConfig.
type Google struct {
	baseURL string
	c       caller
	// models holds the operator's rules (nil: the built-in ones only).
	models *Models
}

// rule is the rule of a Gemini model: the operator's, else the built-in.
func (g *Google) rule(model string) gemRule {
	if r := g.models.gemRule(model); r != nil {
		return *r
	}
	return gemRuleFor(model)
}

var (
	_ engine.ChatModel = (*Google)(nil)
	_ engine.Embedder  = (*Google)(nil)
)

type gemRequest struct {
	Contents          []gemContent   `json:"contents"`
	SystemInstruction *gemContent    `json:"systemInstruction,omitempty"`
	Tools             []gemTool      `json:"tools,omitempty"`
	ToolConfig        *gemToolConfig `json:"toolConfig,omitempty"`
	GenerationConfig  *gemGenConfig  `json:"generationConfig,omitempty"`
}

type gemContent struct {
	Role  string    `json:"role,omitempty"`
	Parts []gemPart `json:"parts"`
}

type gemPart struct {
	Text             string           `json:"text,omitempty"`
	ThoughtSignature string           `json:"thoughtSignature,omitempty"`
	Thought          bool             `json:"thought,omitempty"`
	InlineData       *gemBlob         `json:"inlineData,omitempty"`
	FileData         *gemFile         `json:"fileData,omitempty"`
	FunctionCall     *gemFunctionCall `json:"functionCall,omitempty"`
	FunctionResponse *gemFunctionResp `json:"functionResponse,omitempty"`
}

type gemBlob struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
}

type gemFile struct {
	MimeType string `json:"mimeType,omitempty"`
	FileURI  string `json:"fileUri"`
}

type gemFunctionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

type gemFunctionResp struct {
	ID       string          `json:"id,omitempty"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

type gemTool struct {
	FunctionDeclarations []gemFunctionDecl `json:"functionDeclarations"`
}

type gemFunctionDecl struct {
	Name                 string          `json:"name"`
	Description          string          `json:"description,omitempty"`
	ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema,omitempty"`
}

type gemToolConfig struct {
	FunctionCallingConfig gemFCConfig `json:"functionCallingConfig"`
}

type gemFCConfig struct {
	Mode                 string   `json:"mode"`
	AllowedFunctionNames []string `json:"allowedFunctionNames,omitempty"`
}

type gemGenConfig struct {
	Temperature      *float64           `json:"temperature,omitempty"`
	TopP             *float64           `json:"topP,omitempty"`
	MaxOutputTokens  *int               `json:"maxOutputTokens,omitempty"`
	StopSequences    []string           `json:"stopSequences,omitempty"`
	Seed             *int64             `json:"seed,omitempty"`
	ResponseMimeType string             `json:"responseMimeType,omitempty"`
	ResponseSchema   json.RawMessage    `json:"responseJsonSchema,omitempty"`
	ThinkingConfig   *gemThinkingConfig `json:"thinkingConfig,omitempty"`
}

type gemThinkingConfig struct {
	ThinkingBudget *int   `json:"thinkingBudget,omitempty"`
	ThinkingLevel  string `json:"thinkingLevel,omitempty"`
}

// encodeGeminiRequest is the body of a generateContent request for req,
// custom model parameters merged in (the seed into generationConfig).
func encodeGeminiRequest(req *engine.ChatRequest, rule gemRule) ([]byte, error) {
	r := buildGeminiRequest(req, rule)
	seed, extra := geminiSeed(req.Extra)
	if seed != nil {
		if r.GenerationConfig == nil {
			r.GenerationConfig = &gemGenConfig{}
		}
		r.GenerationConfig.Seed = seed
	}
	return marshalWithExtra(r, extra)
}

func buildGeminiRequest(req *engine.ChatRequest, rule gemRule) *gemRequest {
	r := &gemRequest{}
	names := map[string]string{} // tool_call_id -> function name
	var system []gemPart
	for _, m := range req.Messages {
		switch m.Role {
		case "system", "developer":
			if s := m.Content.String(); s != "" {
				system = append(system, gemPart{Text: s})
			}
		case "assistant":
			var parts []gemPart
			if s := m.Content.String(); s != "" {
				parts = append(parts, gemPart{Text: s})
			}
			for i, tc := range m.ToolCalls {
				names[tc.ID] = tc.Function.Name
				parts = append(parts, gemPart{FunctionCall: &gemFunctionCall{ID: tc.ID, Name: tc.Function.Name, Args: jsonObjectOr(tc.Function.Arguments)},
					ThoughtSignature: gemSignature(tc, i == 0 && rule.signatures)})
			}
			r.Contents = appendGemContent(r.Contents, "model", parts)
		case "tool":
			name := names[m.ToolCallID]
			if name == "" {
				name = m.Name
			}
			resp := jsonObjectOr(m.Content.String())
			if string(resp) == "{}" && strings.TrimSpace(m.Content.String()) != "{}" {
				resp, _ = json.Marshal(map[string]string{"content": m.Content.String()})
			}
			r.Contents = appendGemContent(r.Contents, "user", []gemPart{{FunctionResponse: &gemFunctionResp{ID: m.ToolCallID, Name: name, Response: resp}}})
		default:
			r.Contents = appendGemContent(r.Contents, "user", gemUserParts(m.Content))
		}
	}
	if len(system) > 0 {
		r.SystemInstruction = &gemContent{Parts: system}
	}
	if len(req.Tools) > 0 {
		decls := make([]gemFunctionDecl, 0, len(req.Tools))
		for _, t := range req.Tools {
			decls = append(decls, gemFunctionDecl{Name: t.Function.Name, Description: t.Function.Description,
				ParametersJSONSchema: gemParameters(t.Function.Parameters)})
		}
		r.Tools = []gemTool{{FunctionDeclarations: decls}}
		if tc := req.ToolChoice; tc != nil {
			switch {
			case tc.Function != "":
				r.ToolConfig = &gemToolConfig{gemFCConfig{Mode: "ANY", AllowedFunctionNames: []string{tc.Function}}}
			case tc.Mode == "required":
				r.ToolConfig = &gemToolConfig{gemFCConfig{Mode: "ANY"}}
			case tc.Mode == "none":
				r.ToolConfig = &gemToolConfig{gemFCConfig{Mode: "NONE"}}
			case tc.Mode == "auto":
				r.ToolConfig = &gemToolConfig{gemFCConfig{Mode: "AUTO"}}
			}
		}
	}
	g := gemGenConfig{Temperature: req.Temperature, TopP: req.TopP, MaxOutputTokens: rule.maxTokens(req.MaxTokens), StopSequences: req.Stop}
	if rule.defaultTemperature {
		g.Temperature = nil
	}
	if rf := req.ResponseFormat; rf != nil && (rf.Type == "json_object" || rf.Type == "json_schema") {
		g.ResponseMimeType = "application/json"
		if rf.Type == "json_schema" && rf.JSONSchema != nil && len(rf.JSONSchema.Schema) > 0 && string(rf.JSONSchema.Schema) != "null" {
			g.ResponseSchema = rf.JSONSchema.Schema
		}
	}
	g.ThinkingConfig = rule.thinking(req.ReasoningEffort)
	if g.Temperature != nil || g.TopP != nil || g.MaxOutputTokens != nil || g.StopSequences != nil || g.ResponseMimeType != "" || g.ThinkingConfig != nil {
		r.GenerationConfig = &g
	}
	return r
}

func appendGemContent(cs []gemContent, role string, parts []gemPart) []gemContent {
	if len(parts) == 0 {
		return cs
	}
	if n := len(cs); n > 0 && cs[n-1].Role == role {
		cs[n-1].Parts = append(cs[n-1].Parts, parts...)
		return cs
	}
	return append(cs, gemContent{Role: role, Parts: parts})
}

func gemUserParts(c engine.Content) []gemPart {
	if c.Parts == nil {
		if c.Text == "" {
			return nil
		}
		return []gemPart{{Text: c.Text}}
	}
	var out []gemPart
	for _, p := range c.Parts {
		switch {
		case p.Type == "text" && p.Text != "":
			out = append(out, gemPart{Text: p.Text})
		case p.Type == "image_url" && p.ImageURL != nil:
			if mt, data, ok := parseDataURL(p.ImageURL.URL); ok {
				out = append(out, gemPart{InlineData: &gemBlob{MimeType: mt, Data: data}})
			} else {
				out = append(out, gemPart{FileData: &gemFile{MimeType: imageMime(p.ImageURL.URL), FileURI: p.ImageURL.URL}})
			}
		case p.Type == "file" && p.File != nil:
			if mt, data, ok := parseDataURL(p.File.FileData); ok {
				out = append(out, gemPart{InlineData: &gemBlob{MimeType: mt, Data: data}})
			}
		}
	}
	return out
}

func imageMime(u string) string {
	if pu, err := url.Parse(u); err == nil {
		u = pu.Path
	}
	switch strings.ToLower(path.Ext(u)) {
	case ".png":
		return "image/png"
	case ".webp":
		return "image/webp"
	case ".gif":
		return "image/gif"
	}
	return "image/jpeg"
}

func (g *Google) headers(apiKey string) func(http.Header) {
	return func(h http.Header) {
		if apiKey != "" {
			h.Set("x-goog-api-key", apiKey)
		}
	}
}

func (g *Google) modelURL(model, method string) string {
	return g.baseURL + "/models/" + url.PathEscape(strings.TrimPrefix(model, "models/")) + ":" + method
}

type gemResponse struct {
	Candidates []struct {
		Content       gemContent `json:"content"`
		FinishReason  string     `json:"finishReason"`
		FinishMessage string     `json:"finishMessage"`
	} `json:"candidates"`
	PromptFeedback *struct {
		BlockReason string `json:"blockReason"`
	} `json:"promptFeedback"`
	UsageMetadata *gemUsage `json:"usageMetadata"`
	ModelVersion  string    `json:"modelVersion"`
	ResponseID    string    `json:"responseId"`
	Error         *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
	} `json:"error"`
}

type gemUsage struct {
	PromptTokenCount     int `json:"promptTokenCount"`
	CandidatesTokenCount int `json:"candidatesTokenCount"`
	ThoughtsTokenCount   int `json:"thoughtsTokenCount"`
	CachedContentTokens  int `json:"cachedContentTokenCount"`
}

func (u *gemUsage) canonical() engine.Usage {
	if u == nil {
		return engine.Usage{}
	}
	c := u.CandidatesTokenCount + u.ThoughtsTokenCount
	out := engine.Usage{PromptTokens: u.PromptTokenCount, CompletionTokens: c, TotalTokens: u.PromptTokenCount + c}
	if u.ThoughtsTokenCount > 0 {
		out.CompletionTokensDetails = &engine.CompletionTokensDetails{ReasoningTokens: u.ThoughtsTokenCount}
	}
	if u.CachedContentTokens > 0 {
		out.PromptTokensDetails = &engine.PromptTokensDetails{CachedTokens: u.CachedContentTokens}
	}
	return out
}

// gemFinish maps a Gemini finishReason to an OpenAI finish_reason.
func gemFinish(reason string, toolCalls bool) string {
	switch reason {
	case "MAX_TOKENS":
		return "length"
	case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY":
		return "content_filter"
	}
	if toolCalls {
		return "tool_calls"
	}
	return "stop"
}

// gemCallID is the call's own id, or a random one: Gemini often sends
// none, and an id like call_0 repeated every turn makes a thread that
// later moves to Anthropic fail ("tool_use ids must be unique").
func gemCallID(fc *gemFunctionCall) string {
	if fc.ID != "" {
		return fc.ID
	}
	return "call_" + engine.RandomString(24)
}

func gemArgs(fc *gemFunctionCall) string {
	if len(fc.Args) == 0 || string(fc.Args) == "null" {
		return "{}"
	}
	return string(fc.Args)
}

// Chat sends generateContent.
func (g *Google) Chat(ctx context.Context, req *engine.ChatRequest) (*engine.ChatResponse, error) {
	body, err := encodeGeminiRequest(req, g.rule(req.Model))
	if err != nil {
		return nil, err
	}
	call, err := g.c.post(ctx, g.modelURL(req.Model, "generateContent"), body, false, g.headers(req.APIKey))
	if err != nil {
		return nil, err
	}
	var resp gemResponse
	if err := decodeResponse("google", call, &resp); err != nil {
		return nil, err
	}
	var text strings.Builder
	var calls []engine.ToolCall
	finish := "stop"
	if len(resp.Candidates) == 0 && resp.PromptFeedback != nil && resp.PromptFeedback.BlockReason != "" {
		finish = "content_filter"
	}
	if len(resp.Candidates) > 0 {
		cand := resp.Candidates[0]
		for _, p := range cand.Content.Parts {
			switch {
			case p.FunctionCall != nil:
				calls = append(calls, gemToolCall(p))
			case !p.Thought:
				text.WriteString(p.Text)
			}
		}
		if err := gemFinishError(cand.FinishReason, cand.FinishMessage); err != nil {
			return nil, err
		}
		finish = gemFinish(cand.FinishReason, len(calls) > 0)
	}
	msg := engine.ResponseMessage{Role: "assistant", ToolCalls: calls, Annotations: []any{}}
	if text.Len() > 0 || len(calls) == 0 {
		s := text.String()
		msg.Content = &s
	}
	model := resp.ModelVersion
	if model == "" {
		model = req.Model
	}
	return &engine.ChatResponse{ID: resp.ResponseID, Object: "chat.completion", Created: time.Now().Unix(), Model: model,
		Choices: []engine.Choice{{Index: 0, Message: msg, FinishReason: finish}}, Usage: resp.UsageMetadata.canonical()}, nil
}
