package engine

import (
	"github.com/hearth-dev/hearth/engine/guard"

	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"time"
)

// Pipe is a stored, configured LLM call. One record serves both API shapes:
// the v1 flat shape and the beta shape with a nested config. The prompt
// "slots" live in Messages as the Langbase API encodes them: a system
// message without a name is the system prompt; system messages named
// "safety", "json", "rag" and "opening" are the special prompts; every other
// message is a few-shot example.
//
// Key schema: pipe/<owner>/<name> holds the Pipe; pipeid/<id> holds
// "<owner>/<name>" so a pipe key (which names the pipe by id) finds it.
type Pipe struct {
	ID                string          `json:"id"`
	Owner             string          `json:"owner"`
	Name              string          `json:"name"`
	Description       string          `json:"description"`
	Status            string          `json:"status"`
	Type              string          `json:"type"`
	Model             string          `json:"model"`
	Stream            bool            `json:"stream"`
	JSON              bool            `json:"json"`
	Store             bool            `json:"store"`
	Moderate          bool            `json:"moderate"`
	TopP              float64         `json:"top_p"`
	MaxTokens         int             `json:"max_tokens"`
	Temperature       float64         `json:"temperature"`
	PresencePenalty   float64         `json:"presence_penalty"`
	FrequencyPenalty  float64         `json:"frequency_penalty"`
	Stop              []string        `json:"stop"`
	ToolChoice        ToolChoice      `json:"tool_choice"`
	ParallelToolCalls bool            `json:"parallel_tool_calls"`
	Messages          []Message       `json:"messages"`
	Variables         []Variable      `json:"variables"`
	Tools             []Tool          `json:"tools"`
	Memory            []MemoryRef     `json:"memory"`
	ResponseFormat    *ResponseFormat `json:"response_format,omitempty"`
	// FallbackModels are tried in order when the model fails before
	// answering (docs/providers.md#fallbacks).
	FallbackModels []string `json:"fallback_models,omitempty"`
	// Version is the number of the pipe version this configuration is
	// (pipe_versions.go); 0 for a pipe not changed since versions began.
	Version   int       `json:"version,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// LogContent keeps the prompt and completion text of each run for
	// debugging (docs/pipes-and-threads.md#run-log).
	LogContent bool `json:"log_content,omitempty"`
	// Guard is the pipe's guardrail policy, merged with the server's and
	// the key's on every run (docs/guardrails.md).
	Guard *guard.Policy `json:"guard,omitempty"`
	// Cache answers the pipe's runs from the response cache when the
	// server has one and the request does not say LB-Cache: off.
	Cache bool `json:"cache,omitempty"`
}

// Pipe statuses and types.
const (
	StatusPublic  = "public"
	StatusPrivate = "private"

	PipeChat     = "chat"
	PipeGenerate = "generate"
	PipeRun      = "run"
)

// Names of the special system prompts stored in a pipe's messages.
const (
	PromptSafety  = "safety"
	PromptJSON    = "json"
	PromptRAG     = "rag"
	PromptOpening = "opening"
)

// DefaultPipeModel is the model of a v1-created pipe that names none.
const DefaultPipeModel = "openai:gpt-4o-mini"

// Variable is one {{name}} substitution.
type Variable struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Variables (un)marshals both wire forms: [{name, value}] and {name: value}.
// The object form is sorted by name so records are deterministic.
type Variables []Variable

// UnmarshalJSON accepts an array of {name, value}, an object of strings, or null.
func (v *Variables) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*v = Variables{}
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	if b[0] == '{' {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		for k, val := range m {
			s, ok := val.(string)
			if !ok {
				return FieldError("variables."+k, "must be a string")
			}
			*v = append(*v, Variable{Name: k, Value: s})
		}
		sort.Slice(*v, func(i, j int) bool { return (*v)[i].Name < (*v)[j].Name })
		return nil
	}
	if b[0] != '[' {
		return FieldError("variables", "must be an array of {name, value} or an object of strings")
	}
	var arr []struct {
		Name  *string `json:"name"`
		Value any     `json:"value"`
	}
	if err := json.Unmarshal(b, &arr); err != nil {
		return FieldError("variables", "must be an array of {name, value} or an object of strings")
	}
	for i, a := range arr {
		if a.Name == nil {
			return FieldError(fieldIndex("variables", i)+".name", "is required")
		}
		s, ok := a.Value.(string)
		if a.Value != nil && !ok {
			return FieldError(fieldIndex("variables", i)+".value", "must be a string")
		}
		*v = append(*v, Variable{Name: *a.Name, Value: s})
	}
	return nil
}

// MemoryRef names a memory attached to a pipe or a run.
type MemoryRef struct {
	Name string `json:"name"`
	// MinScore drops retrieved chunks scoring below it
	// (docs/memories-and-retrieval.md#score-thresholds); nil keeps every
	// chunk.
	MinScore *float64 `json:"min_score,omitempty"`
	// Rerank overrides the memory's reranker for this pipe or run
	// (docs/memories-and-retrieval.md#reranking); nil keeps the memory's
	// own setting.
	Rerank *RerankSpec `json:"rerank,omitempty"`
}

// validateMemoryRefs checks the names and retrieval settings of a pipe's
// or a run's memories.
func validateMemoryRefs(field string, refs []MemoryRef) error {
	if len(refs) > maxPipeMemories {
		return FieldError(field, "at most %d memories", maxPipeMemories)
	}
	for i := range refs {
		f := fieldIndex(field, i)
		if err := ValidatePipeName(f+".name", refs[i].Name); err != nil {
			return err
		}
		if err := ValidateMinScore(f+".min_score", refs[i].MinScore); err != nil {
			return err
		}
		if err := refs[i].Rerank.Validate(f + ".rerank"); err != nil {
			return err
		}
	}
	return nil
}

// FlexString is a string that also accepts an array of strings (joined by
// newlines) or null: the API declares `description` as an array.
type FlexString string

// UnmarshalJSON accepts a string, an array of strings, or null.
func (f *FlexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*f = ""
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	if b[0] == '[' {
		var parts []string
		if err := json.Unmarshal(b, &parts); err != nil {
			return err
		}
		*f = FlexString(strings.Join(parts, "\n"))
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*f = FlexString(s)
	return nil
}

// PipeInput is a create or a partial update: nil fields are not set (on
// create they take their defaults). Numbers are float64 so integer rules
// give a clear error instead of a JSON type error.
type PipeInput struct {
	Name              *string
	Description       *string
	Status            *string
	Type              *string
	Model             *string
	Stream            *bool
	JSON              *bool
	Store             *bool
	Moderate          *bool
	LogContent        *bool
	Cache             *bool
	TopP              *float64
	MaxTokens         *float64
	Temperature       *float64
	PresencePenalty   *float64
	FrequencyPenalty  *float64
	Stop              *[]string
	ToolChoice        *ToolChoice
	ParallelToolCalls *bool
	Messages          *[]Message
	Variables         *Variables
	Tools             *[]Tool
	Memory            *[]MemoryRef
	ResponseFormat    *ResponseFormat
	FallbackModels    *[]string
	// Guard, when set, replaces the pipe's guardrail policy; an empty
	// policy ({}) removes it.
	Guard *guard.Policy
	// Field maps a v1 field name to the name the caller used (beta bodies
	// nest fields under config); nil means the v1 names.
	Field func(string) string
}

func (in *PipeInput) field(name string) string {
	if in.Field == nil {
		return name
	}
	return in.Field(name)
}

// newPipeDefaults returns a pipe with every default of
// https://langbase.com/docs/api-reference/pipe/create.
func newPipeDefaults() *Pipe {
	return &Pipe{
		Status: StatusPublic, Type: PipeChat, Model: DefaultPipeModel,
		Stream: true, Store: true, TopP: 1, MaxTokens: 1000, Temperature: 0.7,
		PresencePenalty: 1, FrequencyPenalty: 1, Stop: []string{},
		ToolChoice: ToolChoice{Mode: "auto"}, ParallelToolCalls: true,
		Messages: []Message{}, Variables: []Variable{}, Tools: []Tool{}, Memory: []MemoryRef{},
	}
}

// apply copies the set fields of in onto p.
func (in *PipeInput) apply(p *Pipe) {
	setS := func(dst *string, src *string) {
		if src != nil {
			*dst = *src
		}
	}
	setB := func(dst *bool, src *bool) {
		if src != nil {
			*dst = *src
		}
	}
	setF := func(dst *float64, src *float64) {
		if src != nil {
			*dst = *src
		}
	}
	setS(&p.Name, in.Name)
	setS(&p.Description, in.Description)
	setS(&p.Status, in.Status)
	setS(&p.Type, in.Type)
	setS(&p.Model, in.Model)
	setB(&p.Stream, in.Stream)
	setB(&p.JSON, in.JSON)
	setB(&p.Store, in.Store)
	setB(&p.Moderate, in.Moderate)
	setB(&p.LogContent, in.LogContent)
	setB(&p.Cache, in.Cache)
	setF(&p.TopP, in.TopP)
	setF(&p.Temperature, in.Temperature)
	setF(&p.PresencePenalty, in.PresencePenalty)
	setF(&p.FrequencyPenalty, in.FrequencyPenalty)
	setB(&p.ParallelToolCalls, in.ParallelToolCalls)
	if in.MaxTokens != nil {
		p.MaxTokens = int(*in.MaxTokens)
	}
	if in.Stop != nil {
		p.Stop = append([]string{}, *in.Stop...)
	}
	if in.ToolChoice != nil {
		p.ToolChoice = *in.ToolChoice
	}
	if in.Messages != nil {
		p.Messages = append([]Message{}, *in.Messages...)
	}
	if in.Variables != nil {
		p.Variables = []Variable{}
		for _, v := range *in.Variables {
			p.Variables = append(p.Variables, Variable{Name: strings.TrimSpace(v.Name), Value: v.Value})
		}
	}
	if in.Tools != nil {
		p.Tools = append([]Tool{}, *in.Tools...)
	}
	if in.Memory != nil {
		p.Memory = dedupMemory(*in.Memory)
	}
	if in.FallbackModels != nil {
		p.FallbackModels = nil
		for _, m := range *in.FallbackModels {
			p.FallbackModels = append(p.FallbackModels, strings.TrimSpace(m))
		}
	}
	if in.ResponseFormat != nil {
		rf := *in.ResponseFormat
		p.ResponseFormat = &rf
		if rf.Type == "text" && rf.JSONSchema == nil {
			p.ResponseFormat = nil
		}
	}
	if in.Guard != nil {
		g := *in.Guard
		p.Guard = &g
		if g.Input == nil && g.Context == nil && g.Output == nil && len(g.NationalIDs) == 0 && len(g.InjectionRules) == 0 && g.InjectionThreshold == 0 {
			p.Guard = nil
		}
	}
}

func dedupMemory(refs []MemoryRef) []MemoryRef {
	out := []MemoryRef{}
	seen := map[string]bool{}
	for _, r := range refs {
		if !seen[r.Name] {
			seen[r.Name] = true
			out = append(out, r)
		}
	}
	return out
}

// SystemPrompt returns the content of the pipe's system prompt slot ("" if none).
func (p *Pipe) SystemPrompt() string { return p.prompt("") }

// Prompt returns a named system prompt ("safety", "json", "rag", "opening").
func (p *Pipe) Prompt(name string) string { return p.prompt(name) }

func (p *Pipe) prompt(name string) string {
	if m := p.promptMessage(name); m != nil {
		return m.Content.String()
	}
	return ""
}

func (p *Pipe) promptMessage(name string) *Message {
	for i := range p.Messages {
		if p.Messages[i].Role == "system" && p.Messages[i].Name == name {
			return &p.Messages[i]
		}
	}
	return nil
}

// FewShot returns the pipe's non-system messages, in order.
func (p *Pipe) FewShot() []Message {
	var out []Message
	for _, m := range p.Messages {
		if m.Role != "system" {
			out = append(out, m)
		}
	}
	return out
}

// SetPrompt sets (or, with an empty text, removes) a system prompt slot,
// keeping the slots at the head of Messages.
func (p *Pipe) SetPrompt(name, text string) {
	for i := range p.Messages {
		if p.Messages[i].Role == "system" && p.Messages[i].Name == name {
			if text == "" {
				p.Messages = append(p.Messages[:i:i], p.Messages[i+1:]...)
			} else {
				p.Messages[i].Content = TextContent(text)
			}
			return
		}
	}
	if text == "" {
		return
	}
	m := Message{Role: "system", Name: name, Content: TextContent(text)}
	n := 0
	for n < len(p.Messages) && p.Messages[n].Role == "system" {
		n++
	}
	p.Messages = append(p.Messages[:n:n], append([]Message{m}, p.Messages[n:]...)...)
}
