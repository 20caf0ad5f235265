package fake

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// The checks below follow Google's documentation of the Gemini API, written
// on their own (not from the adapter's tables) so that a mistake shared by
// adapter and fake cannot hide:
//   - thought signatures: https://ai.google.dev/gemini-api/docs/thought-signatures
//   - thinking: https://ai.google.dev/gemini-api/docs/thinking
//   - function declarations: https://ai.google.dev/api/caching#FunctionDeclaration
//   - structured output: https://ai.google.dev/gemini-api/docs/structured-output

// gemSkip is the documented value that skips signature validation.
const gemSkip = "skip_thought_signature_validator"

type gemCheckPart struct {
	Text             *string                `json:"text"`
	ThoughtSignature string                 `json:"thoughtSignature"`
	FunctionCall     *struct{ Name string } `json:"functionCall"`
	FunctionResponse json.RawMessage        `json:"functionResponse"`
}

type gemCheckReq struct {
	Contents []struct {
		Role  string         `json:"role"`
		Parts []gemCheckPart `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name                 string                     `json:"name"`
			Parameters           map[string]json.RawMessage `json:"parameters"`
			ParametersJSONSchema map[string]json.RawMessage `json:"parametersJsonSchema"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig *struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		ThinkingConfig     *struct {
			ThinkingBudget *int   `json:"thinkingBudget"`
			ThinkingLevel  string `json:"thinkingLevel"`
		} `json:"thinkingConfig"`
	} `json:"generationConfig"`
}

// gemini3 reports whether model is of the Gemini 3 generation or later.
func gemini3(model string) bool {
	v := strings.TrimPrefix(model, "gemini-")
	return v != model && len(v) > 0 && v[0] >= '3' && v[0] <= '9'
}

// gemLevels are the thinking levels a Gemini 3+ model accepts.
func gemLevels(model string) []string {
	switch {
	case strings.HasPrefix(model, "gemini-3-pro"):
		return []string{"low", "high"}
	case strings.Contains(model, "-pro"):
		return []string{"low", "medium", "high"}
	}
	return []string{"minimal", "low", "medium", "high"}
}

// checkGemini returns the 400 message the real API would give, or "".
func (s *Server) checkGemini(model string, body []byte) string {
	var req gemCheckReq
	if err := json.Unmarshal(body, &req); err != nil {
		return "Invalid JSON payload received. " + err.Error()
	}
	if len(req.Contents) == 0 {
		return "* GenerateContentRequest.contents: contents is not specified"
	}
	for i, t := range req.Tools {
		for j, d := range t.FunctionDeclarations {
			at := fmt.Sprintf("tools[%d].function_declarations[%d]", i, j)
			if d.Parameters != nil && d.ParametersJSONSchema != nil {
				return at + ": parameters and parameters_json_schema are mutually exclusive"
			}
			if d.Parameters != nil {
				if msg := checkOpenAPISchema(at+".parameters", d.Parameters); msg != "" {
					return msg
				}
			}
			if d.ParametersJSONSchema != nil && string(d.ParametersJSONSchema["type"]) != `"object"` {
				return "* GenerateContentRequest." + at + ".parameters_json_schema: must describe an object"
			}
		}
	}
	if g := req.GenerationConfig; g != nil {
		if len(g.ResponseSchema) > 0 && len(g.ResponseJSONSchema) > 0 {
			return "generation_config: response_schema and response_json_schema are mutually exclusive"
		}
		if len(g.ResponseJSONSchema) > 0 && g.ResponseMimeType != "application/json" {
			return "generation_config.response_mime_type: must be application/json when response_json_schema is set"
		}
		if tc := g.ThinkingConfig; tc != nil {
			if msg := checkThinking(model, tc.ThinkingBudget, tc.ThinkingLevel); msg != "" {
				return msg
			}
		}
	}
	if gemini3(model) {
		return s.checkSignatures(req)
	}
	return ""
}

func checkThinking(model string, budget *int, level string) string {
	if budget != nil && level != "" {
		return "You can only set only one of thinking budget and thinking level."
	}
	if level != "" {
		if !gemini3(model) {
			return "Thinking level is not supported for this model."
		}
		for _, l := range gemLevels(model) {
			if strings.EqualFold(l, level) {
				return ""
			}
		}
		return fmt.Sprintf("Thinking level %s is not supported for model %s.", level, model)
	}
	if budget != nil && strings.HasPrefix(model, "gemini-2.5-pro") && *budget >= 0 && *budget < 128 {
		return fmt.Sprintf("Budget %d is invalid. This model only works in thinking mode.", *budget)
	}
	return ""
}

// checkOpenAPISchema applies the OpenAPI-subset Schema of the "parameters"
// field: no JSON Schema keywords outside it, and an OBJECT needs properties.
func checkOpenAPISchema(at string, s map[string]json.RawMessage) string {
	known := map[string]bool{"type": true, "format": true, "title": true, "description": true, "nullable": true, "enum": true,
		"maxItems": true, "minItems": true, "properties": true, "required": true, "minProperties": true, "maxProperties": true,
		"minLength": true, "maxLength": true, "pattern": true, "example": true, "anyOf": true, "propertyOrdering": true,
		"default": true, "items": true, "minimum": true, "maximum": true}
	for k := range s {
		if !known[k] {
			return fmt.Sprintf("Invalid JSON payload received. Unknown name %q at 'GenerateContentRequest.%s': Cannot find field.", k, at)
		}
	}
	var typ string
	json.Unmarshal(s["type"], &typ)
	if strings.EqualFold(typ, "object") {
		var props map[string]map[string]json.RawMessage
		json.Unmarshal(s["properties"], &props)
		if len(props) == 0 {
			return "* GenerateContentRequest." + at + ".properties: should be non-empty for OBJECT type"
		}
		for name, p := range props {
			if msg := checkOpenAPISchema(at+".properties["+name+"].value", p); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// checkSignatures enforces the Gemini 3 rule: in the current turn (every
// model content after the last user content with text), the first
// functionCall part of each step carries the signature Gemini issued.
func (s *Server) checkSignatures(req gemCheckReq) string {
	start := 0
	for i := len(req.Contents) - 1; i >= 0; i-- {
		c := req.Contents[i]
		if c.Role != "user" {
			continue
		}
		for _, p := range c.Parts {
			if p.Text != nil && p.FunctionResponse == nil {
				start = i + 1
			}
		}
		if start > 0 {
			break
		}
	}
	for i := start; i < len(req.Contents); i++ {
		c := req.Contents[i]
		if c.Role != "model" {
			continue
		}
		for pi, p := range c.Parts {
			if p.FunctionCall == nil {
				continue
			}
			if sig := p.ThoughtSignature; sig == "" || (sig != gemSkip && !s.wasIssued(sig)) {
				what := "is missing a `thought_signature`"
				if sig != "" {
					what = "has an invalid `thought_signature`"
				}
				return fmt.Sprintf("Function call `%s` in the `%d.` content block %s (position %d). Learn more: https://ai.google.dev/gemini-api/docs/thought-signatures",
					p.FunctionCall.Name, i, what, pi)
			}
			break
		}
	}
	return ""
}

// gemSignature issues the thought signature of a function call.
func (s *Server) gemSignature(name string) string {
	n := s.n.Load()
	return s.issue(base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("sig:%s:%d", name, n))))
}
