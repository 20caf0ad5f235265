package engine

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Limits and patterns of pipe fields. Names are what users type in URLs and
// SDK calls: a letter or digit first, then letters, digits, '.', '_' or
// '-', at most 100 characters. Names are case-sensitive.
var (
	pipeNameRE     = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9._-]{0,99}$`)
	toolNameRE     = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	schemaNameRE   = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	variableNameRE = regexp.MustCompile(`^[^{}]{1,100}$`)
)

// ValidToolName reports whether name is a valid function tool name: 1 to
// 64 letters, digits, '_' or '-' (the rule OpenAI applies).
func ValidToolName(name string) bool { return toolNameRE.MatchString(name) }

const (
	maxDescription   = 10000
	maxStop          = 4
	maxStopLen       = 500
	maxTools         = 128
	maxPipeMessages  = 500
	maxVariables     = 200
	maxVariableValue = 100000
	maxPipeMemories  = 50
	maxMaxTokens     = 1000000
)

// ValidatePipeName checks a pipe name against the name rule.
func ValidatePipeName(field, name string) error {
	if name == "" {
		return FieldError(field, "is required")
	}
	if !pipeNameRE.MatchString(name) {
		return FieldError(field, "%q is not a valid pipe name: use 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit", name)
	}
	return nil
}

func fieldIndex(field string, i int) string { return field + "[" + strconv.Itoa(i) + "]" }

// validate checks every structural rule of a complete pipe. f maps v1 field
// names to the caller's names.
func (p *Pipe) validate(f func(string) string) error {
	if err := ValidatePipeName(f("name"), p.Name); err != nil {
		return err
	}
	if len(p.Description) > maxDescription {
		return FieldError(f("description"), "must be at most %d characters", maxDescription)
	}
	if p.Status != StatusPublic && p.Status != StatusPrivate {
		return FieldError(f("status"), "must be %q or %q, got %q", StatusPublic, StatusPrivate, p.Status)
	}
	if p.Type != PipeChat && p.Type != PipeGenerate && p.Type != PipeRun {
		return FieldError(f("type"), "must be chat, generate or run, got %q", p.Type)
	}
	if _, err := ParseModelID(f("model"), p.Model); err != nil {
		return err
	}
	if err := checkRange(f("temperature"), p.Temperature, 0, 2); err != nil {
		return err
	}
	if err := checkRange(f("top_p"), p.TopP, 0, 1); err != nil {
		return err
	}
	if err := checkRange(f("presence_penalty"), p.PresencePenalty, -2, 2); err != nil {
		return err
	}
	if err := checkRange(f("frequency_penalty"), p.FrequencyPenalty, -2, 2); err != nil {
		return err
	}
	if p.MaxTokens < 1 || p.MaxTokens > maxMaxTokens {
		return FieldError(f("max_tokens"), "must be a whole number from 1 to %d", maxMaxTokens)
	}
	if err := validateStop(f("stop"), p.Stop); err != nil {
		return err
	}
	if err := ValidateTools(f("tools"), p.Tools); err != nil {
		return err
	}
	if err := validateToolChoice(f("tool_choice"), p.ToolChoice, p.Tools); err != nil {
		return err
	}
	if err := validatePipeMessages(f("messages"), p.Messages); err != nil {
		return err
	}
	if err := validateVariables(f("variables"), p.Variables); err != nil {
		return err
	}
	if err := validateMemoryRefs(f("memory"), p.Memory); err != nil {
		return err
	}
	if err := validateGuard(f("guard"), p.Guard); err != nil {
		return err
	}
	return ValidateResponseFormat(f("response_format"), p.ResponseFormat)
}

// checkRange refuses values outside [lo, hi] (and NaN, which JSON cannot carry but Go can).
func checkRange(field string, v, lo, hi float64) error {
	if math.IsNaN(v) || v < lo || v > hi {
		return FieldError(field, "must be between %g and %g, got %g", lo, hi, v)
	}
	return nil
}

// checkMaxTokens validates a max_tokens value given as a JSON number.
func checkMaxTokens(field string, v *float64) error {
	if v == nil {
		return nil
	}
	if *v != math.Trunc(*v) || *v < 1 || *v > maxMaxTokens {
		return FieldError(field, "must be a whole number from 1 to %d, got %g", maxMaxTokens, *v)
	}
	return nil
}

func validateStop(field string, stop []string) error {
	if len(stop) > maxStop {
		return FieldError(field, "at most %d stop sequences, got %d", maxStop, len(stop))
	}
	for i, s := range stop {
		if s == "" {
			return FieldError(fieldIndex(field, i), "must not be empty")
		}
		if len(s) > maxStopLen {
			return FieldError(fieldIndex(field, i), "must be at most %d characters", maxStopLen)
		}
	}
	return nil
}

// ValidateTools checks tool definitions: type "function", a valid unique
// function name, and parameters that are a JSON object when given.
func ValidateTools(field string, tools []Tool) error {
	if len(tools) > maxTools {
		return FieldError(field, "at most %d tools", maxTools)
	}
	seen := map[string]bool{}
	for i, t := range tools {
		fi := fieldIndex(field, i)
		if t.Type != "function" {
			return FieldError(fi+".type", "must be \"function\", got %q", t.Type)
		}
		if !toolNameRE.MatchString(t.Function.Name) {
			return FieldError(fi+".function.name", "%q is not a valid function name: use 1-64 letters, digits, '_' or '-'", t.Function.Name)
		}
		if seen[t.Function.Name] {
			return FieldError(fi+".function.name", "duplicate tool %q", t.Function.Name)
		}
		seen[t.Function.Name] = true
		if ps := bytes.TrimSpace(t.Function.Parameters); len(ps) > 0 && string(ps) != "null" && ps[0] != '{' {
			return FieldError(fi+".function.parameters", "must be a JSON Schema object")
		}
	}
	return nil
}

func validateToolChoice(field string, tc ToolChoice, tools []Tool) error {
	if tc.Function != "" {
		for _, t := range tools {
			if t.Function.Name == tc.Function {
				return nil
			}
		}
		return FieldError(field, "names the function %q, which is not among the pipe's tools", tc.Function)
	}
	switch tc.Mode {
	case "auto", "required", "none":
		return nil
	}
	return FieldError(field, "must be \"auto\", \"required\", \"none\" or {\"type\":\"function\",\"function\":{\"name\":...}}")
}

// ValidateResponseFormat checks text, json_object and json_schema formats.
func ValidateResponseFormat(field string, rf *ResponseFormat) error {
	if rf == nil {
		return nil
	}
	switch rf.Type {
	case "text", "json_object":
		return nil
	case "json_schema":
		if rf.JSONSchema == nil {
			return FieldError(field+".json_schema", "is required when type is json_schema")
		}
		if !schemaNameRE.MatchString(rf.JSONSchema.Name) {
			return FieldError(field+".json_schema.name", "is required: 1-64 letters, digits, '_' or '-'")
		}
		if s := bytes.TrimSpace(rf.JSONSchema.Schema); len(s) > 0 && string(s) != "null" && s[0] != '{' {
			return FieldError(field+".json_schema.schema", "must be a JSON Schema object")
		}
		return nil
	}
	return FieldError(field+".type", "must be text, json_object or json_schema, got %q", rf.Type)
}

var systemNames = map[string]bool{"": true, PromptSafety: true, PromptJSON: true, PromptRAG: true, PromptOpening: true}

func validatePipeMessages(field string, msgs []Message) error {
	if len(msgs) > maxPipeMessages {
		return FieldError(field, "at most %d messages", maxPipeMessages)
	}
	seen := map[string]bool{}
	for i, m := range msgs {
		fi := fieldIndex(field, i)
		if m.Role == "system" {
			if !systemNames[m.Name] {
				return FieldError(fi+".name", "a system message is the system prompt (no name) or is named safety, json, rag or opening; got %q", m.Name)
			}
			if seen[m.Name] {
				what := "system prompt"
				if m.Name != "" {
					what = m.Name + " prompt"
				}
				return FieldError(fi, "a pipe has one %s", what)
			}
			seen[m.Name] = true
		}
		if err := ValidateMessage(fi, m); err != nil {
			return err
		}
	}
	return nil
}

// ValidateMessage checks one chat message: a known role, content where the
// role needs it, and well-formed tool calls.
func ValidateMessage(field string, m Message) error {
	switch m.Role {
	case "system", "user", "assistant", "tool":
	case "":
		return FieldError(field+".role", "is required")
	default:
		return FieldError(field+".role", "must be system, user, assistant or tool, got %q", m.Role)
	}
	if len(m.ToolCalls) > 0 && m.Role != "assistant" {
		return FieldError(field+".tool_calls", "only assistant messages carry tool calls")
	}
	switch m.Role {
	case "tool":
		if m.ToolCallID == "" {
			return FieldError(field+".tool_call_id", "is required on a tool message")
		}
		if m.Content.IsNull() {
			return FieldError(field+".content", "is required on a tool message")
		}
	case "assistant":
		if m.Content.IsNull() && len(m.ToolCalls) == 0 {
			return FieldError(field+".content", "is required unless the message has tool_calls")
		}
	default:
		if m.Content.IsNull() {
			return FieldError(field+".content", "is required on a %s message", m.Role)
		}
	}
	for j, p := range m.Content.Parts {
		fp := fieldIndex(field+".content", j)
		switch p.Type {
		case "text":
		case "image_url":
			if p.ImageURL == nil || p.ImageURL.URL == "" {
				return FieldError(fp+".image_url.url", "is required")
			}
		default:
			return FieldError(fp+".type", "must be text or image_url, got %q", p.Type)
		}
	}
	return ValidateToolCalls(field+".tool_calls", m.ToolCalls)
}

// ValidateToolCalls checks the tool calls of an assistant message.
func ValidateToolCalls(field string, calls []ToolCall) error {
	for i, c := range calls {
		fi := fieldIndex(field, i)
		if c.ID == "" {
			return FieldError(fi+".id", "is required")
		}
		if c.Type != "function" {
			return FieldError(fi+".type", "must be \"function\", got %q", c.Type)
		}
		if c.Function.Name == "" {
			return FieldError(fi+".function.name", "is required")
		}
		if len(c.ExtraContent) > 0 && JSONKind(c.ExtraContent) != "object" {
			return FieldError(fi+".extra_content", "must be a JSON object (echo it as the response gave it), got %s", JSONKind(c.ExtraContent))
		}
	}
	return nil
}

func validateVariables(field string, vars []Variable) error {
	if len(vars) > maxVariables {
		return FieldError(field, "at most %d variables", maxVariables)
	}
	seen := map[string]bool{}
	for i, v := range vars {
		name := strings.TrimSpace(v.Name)
		if !variableNameRE.MatchString(name) {
			return FieldError(fieldIndex(field, i)+".name", "must be 1-100 characters without '{' or '}'")
		}
		if seen[name] {
			return FieldError(fieldIndex(field, i)+".name", "duplicate variable %q", name)
		}
		seen[name] = true
		if len(v.Value) > maxVariableValue {
			return FieldError(fieldIndex(field, i)+".value", "must be at most %d characters", maxVariableValue)
		}
	}
	return nil
}

// JSONKind names the JSON type of raw ("null", "string", "array", "object",
// "boolean" or "number") for error messages.
func JSONKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return "null"
	case raw[0] == '"':
		return "string"
	case raw[0] == '[':
		return "array"
	case raw[0] == '{':
		return "object"
	case raw[0] == 't' || raw[0] == 'f':
		return "boolean"
	}
	return "number"
}
