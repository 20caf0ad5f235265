package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/hearth-dev/hearth/engine/jsonfast"
)

// This file holds the canonical, OpenAI-shaped chat model used inside Hearth.
// Every provider adapter converts to and from it; pipes and the agent speak
// only this. JSON tags follow the OpenAI chat completions wire format, so a
// ChatResponse or ChatChunk can be written to clients as-is.

// Message is one chat message.
type Message struct {
	Role       string     `json:"role"`
	Content    Content    `json:"content"`
	Name       string     `json:"name,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	// CacheControl is an Anthropic prompt-cache breakpoint
	// ({"type":"ephemeral"}) on the message's last block: its string
	// content, its tool result or its last tool call. Only the anthropic
	// adapter sends it; not on the OpenAI wire.
	CacheControl json.RawMessage `json:"-"`
}

// ContentPart is one part of a multimodal message (type "text",
// "image_url" or "file").
type ContentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *ImageURL `json:"image_url,omitempty"`
	File     *FilePart `json:"file,omitempty"`
	// CacheControl is an Anthropic prompt-cache breakpoint on this part;
	// only the anthropic adapter sends it.
	CacheControl json.RawMessage `json:"-"`
}

// FilePart is the document of a "file" content part, in OpenAI's shape:
// FileData is a data: URL (data:application/pdf;base64,...).
type FilePart struct {
	FileData string `json:"file_data,omitempty"`
	Filename string `json:"filename,omitempty"`
}

// ImageURL is the image reference of an image_url content part.
type ImageURL struct {
	URL    string `json:"url"`
	Detail string `json:"detail,omitempty"`
}

// Content is a message's content: a string, an array of parts, or null.
// The zero value is null.
type Content struct {
	Text  string
	Parts []ContentPart
	// Set is true when content is present (a string, even empty, or parts).
	Set bool
}

// TextContent returns string content.
func TextContent(s string) Content { return Content{Text: s, Set: true} }

// IsNull reports whether the content is JSON null.
func (c Content) IsNull() bool { return !c.Set }

// String returns the text of the content: the string, or the text parts joined by newlines.
func (c Content) String() string {
	if c.Parts == nil {
		return c.Text
	}
	var b strings.Builder
	for _, p := range c.Parts {
		if p.Type == "text" && p.Text != "" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// MarshalJSON writes a string, an array of parts, or null.
func (c Content) MarshalJSON() ([]byte, error) {
	switch {
	case !c.Set:
		return []byte("null"), nil
	case c.Parts != nil:
		return json.Marshal(c.Parts)
	default:
		return json.Marshal(c.Text)
	}
}

// UnmarshalJSON accepts a string, an array of parts, or null.
func (c *Content) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*c = Content{}
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	if b[0] == '[' {
		var parts []ContentPart
		if err := json.Unmarshal(b, &parts); err != nil {
			return err
		}
		if parts == nil {
			parts = []ContentPart{}
		}
		*c = Content{Parts: parts, Set: true}
		return nil
	}
	if s, ok := jsonfast.PlainString(b); ok {
		*c = Content{Text: string(s), Set: true}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*c = Content{Text: s, Set: true}
	return nil
}

// ToolCall is a call the model asked for.
type ToolCall struct {
	// Index is set only in stream deltas, where calls are keyed by it.
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function FunctionCall `json:"function"`
	// ExtraContent is opaque provider data that must come back unchanged
	// with the call on the next turn, keyed by provider, for example
	// {"google":{"thought_signature":"..."}}. The shape is the one of
	// Gemini's OpenAI-compatible API
	// (https://ai.google.dev/gemini-api/docs/openai#thinking). Threads
	// store it; a client that replays history itself echoes it back.
	ExtraContent json.RawMessage `json:"extra_content,omitempty"`
}

// FunctionCall names the function and carries its JSON-text arguments.
type FunctionCall struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// Tool is a tool definition offered to the model (type "function").
type Tool struct {
	Type     string       `json:"type"`
	Function ToolFunction `json:"function"`
	// CacheControl is an Anthropic prompt-cache breakpoint on this tool;
	// only the anthropic adapter sends it.
	CacheControl json.RawMessage `json:"-"`
}

// ToolFunction describes a callable function.
type ToolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      *bool           `json:"strict,omitempty"`
}

// ToolChoice is "auto", "required", "none", or a forced function.
type ToolChoice struct {
	Mode     string // "auto", "required", "none"; empty when Function is set
	Function string // forced function name
}

// MarshalJSON writes the OpenAI form.
func (t ToolChoice) MarshalJSON() ([]byte, error) {
	if t.Function != "" {
		return json.Marshal(map[string]any{"type": "function", "function": map[string]string{"name": t.Function}})
	}
	return json.Marshal(t.Mode)
}

// UnmarshalJSON reads "auto" | "required" | "none" | {type:function, function:{name}}.
func (t *ToolChoice) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*t = ToolChoice{}
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	if b[0] == '"' {
		return json.Unmarshal(b, &t.Mode)
	}
	var o struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	t.Function = o.Function.Name
	if t.Function == "" {
		t.Mode = "invalid"
	}
	return nil
}

// ResponseFormat selects text, json_object or json_schema output.
type ResponseFormat struct {
	Type       string      `json:"type"`
	JSONSchema *JSONSchema `json:"json_schema,omitempty"`
}

// JSONSchema is the structured-output schema of a json_schema response format.
type JSONSchema struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema,omitempty"`
	Strict      *bool           `json:"strict,omitempty"`
}

// ChatRequest is a provider-neutral chat completion request. Pointer fields
// are unset when nil, so adapters send only what the caller chose.
type ChatRequest struct {
	// Model is the provider's own model id (without the "provider:" prefix).
	Model             string
	Messages          []Message
	Tools             []Tool
	ToolChoice        *ToolChoice
	ParallelToolCalls *bool
	Temperature       *float64
	TopP              *float64
	MaxTokens         *int
	PresencePenalty   *float64
	FrequencyPenalty  *float64
	Stop              []string
	ResponseFormat    *ResponseFormat
	ReasoningEffort   string
	// Extra holds custom model parameters passed to the provider unchanged.
	Extra map[string]json.RawMessage
	// APIKey is the resolved provider key ("" when the provider needs none).
	APIKey string
}

// Usage counts tokens.
type Usage struct {
	PromptTokens            int                      `json:"prompt_tokens"`
	CompletionTokens        int                      `json:"completion_tokens"`
	TotalTokens             int                      `json:"total_tokens"`
	PromptTokensDetails     *PromptTokensDetails     `json:"prompt_tokens_details,omitempty"`
	CompletionTokensDetails *CompletionTokensDetails `json:"completion_tokens_details,omitempty"`
	// CacheCreationTokens are the prompt tokens written to a provider's
	// prompt cache (Anthropic's cache_creation_input_tokens), included in
	// PromptTokens; OpenAI's wire format has no field for them.
	CacheCreationTokens int `json:"-"`
	// CacheCreation1hTokens are the part of CacheCreationTokens written
	// with a one-hour lifetime (Anthropic's ephemeral_1h_input_tokens),
	// billed at a higher write price than the default five minutes.
	CacheCreation1hTokens int `json:"-"`
}

// CachedTokens is the prompt tokens read from a prompt cache (0 when the
// provider said nothing).
func (u *Usage) CachedTokens() int {
	if u.PromptTokensDetails == nil {
		return 0
	}
	return u.PromptTokensDetails.CachedTokens
}

// PromptTokensDetails breaks prompt tokens down.
type PromptTokensDetails struct {
	CachedTokens int `json:"cached_tokens"`
	AudioTokens  int `json:"audio_tokens"`
}

// CompletionTokensDetails breaks completion tokens down.
type CompletionTokensDetails struct {
	ReasoningTokens          int `json:"reasoning_tokens"`
	AudioTokens              int `json:"audio_tokens"`
	AcceptedPredictionTokens int `json:"accepted_prediction_tokens"`
	RejectedPredictionTokens int `json:"rejected_prediction_tokens"`
}

// ResponseMessage is the assistant message of a non-stream choice.
type ResponseMessage struct {
	Role        string     `json:"role"`
	Content     *string    `json:"content"`
	Refusal     *string    `json:"refusal"`
	ToolCalls   []ToolCall `json:"tool_calls,omitempty"`
	Annotations []any      `json:"annotations"`
	// Thinking holds the reasoning blocks (Anthropic thinking and
	// redacted_thinking, raw) of an answer without tool calls, for the
	// Messages surface; with tool calls they ride in the first call's
	// ExtraContent instead. Not part of OpenAI's wire format.
	Thinking []json.RawMessage `json:"-"`
}

// Choice is one non-stream completion choice.
type Choice struct {
	Index        int             `json:"index"`
	Message      ResponseMessage `json:"message"`
	Logprobs     any             `json:"logprobs"`
	FinishReason string          `json:"finish_reason"`
	// StopSequence is the stop sequence that ended the answer, when the
	// provider says which (Anthropic's stop_sequence); not on the wire.
	StopSequence string `json:"-"`
}

// ChatResponse is a non-stream chat completion.
type ChatResponse struct {
	ID                string   `json:"id"`
	Object            string   `json:"object"`
	Created           int64    `json:"created"`
	Model             string   `json:"model"`
	Choices           []Choice `json:"choices"`
	Usage             Usage    `json:"usage"`
	SystemFingerprint *string  `json:"system_fingerprint"`
}

// Delta is the incremental message of a stream chunk.
type Delta struct {
	Role      string     `json:"role,omitempty"`
	Content   *string    `json:"content,omitempty"`
	Refusal   *string    `json:"refusal,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Annotations are the url_citation annotations of the answer (sent
	// once, on one delta), as OpenAI streams them.
	Annotations []any `json:"annotations,omitempty"`
	// Thinking is ResponseMessage.Thinking of a stream, set on the chunk
	// with the finish reason; not on the wire.
	Thinking []json.RawMessage `json:"-"`
	// Reasoning is a piece of the answer's reasoning as the provider
	// streams it (Anthropic thinking, DeepSeek reasoning_content), for
	// surfaces that stream reasoning; not on the wire.
	Reasoning *ReasoningDelta `json:"-"`
}

// ReasoningDelta is a streamed piece of one reasoning block. Block numbers
// the answer's reasoning blocks from 0; Text and Signature are appended
// to the block's thinking and signature; Redacted is a whole
// redacted_thinking block, raw.
type ReasoningDelta struct {
	Block     int
	Text      string
	Signature string
	Redacted  json.RawMessage
}

// ChunkChoice is one choice of a stream chunk.
type ChunkChoice struct {
	Index        int     `json:"index"`
	Delta        Delta   `json:"delta"`
	Logprobs     any     `json:"logprobs"`
	FinishReason *string `json:"finish_reason"`
	// StopSequence is Choice.StopSequence of a stream, on the chunk with
	// the finish reason; not on the wire.
	StopSequence string `json:"-"`
}

// ChatChunk is one streamed chunk, in the OpenAI chat.completion.chunk shape.
type ChatChunk struct {
	ID                string        `json:"id"`
	Object            string        `json:"object"`
	Created           int64         `json:"created"`
	Model             string        `json:"model"`
	SystemFingerprint *string       `json:"system_fingerprint"`
	Choices           []ChunkChoice `json:"choices"`
	Usage             *Usage        `json:"usage,omitempty"`
}

// ChatStream yields chunks. Recv returns io.EOF after the last chunk of a
// complete stream; a stream that ends without its terminal event returns an
// error instead. Close releases the upstream connection and may be called at
// any time, more than once.
type ChatStream interface {
	Recv() (*ChatChunk, error)
	Close() error
}

// ChatModel is a chat completion provider.
type ChatModel interface {
	Chat(ctx context.Context, req *ChatRequest) (*ChatResponse, error)
	ChatStream(ctx context.Context, req *ChatRequest) (ChatStream, error)
}

// EmbedPurpose tells embedders that distinguish them whether texts are
// documents being indexed or a search query.
type EmbedPurpose int

const (
	EmbedDocument EmbedPurpose = iota
	EmbedQuery
)

// EmbedRequest asks for one vector per input text.
type EmbedRequest struct {
	Model   string
	Inputs  []string
	Purpose EmbedPurpose
	APIKey  string
	// Dimensions, when above 0, asks for vectors of that size from a model
	// that can shorten its output (OpenAI's text-embedding-3-*, Gemini's
	// outputDimensionality, Cohere's embed-v4 output_dimension). An adapter
	// that cannot honour it answers a BAD_REQUEST naming "dimensions".
	Dimensions int
}

// Embedder turns texts into vectors, in input order.
type Embedder interface {
	Embed(ctx context.Context, req *EmbedRequest) ([][]float32, error)
	// MaxBatch is the most inputs one Embed call may carry for this provider.
	MaxBatch() int
}

// ModerationResult says whether input was flagged and for which categories.
type ModerationResult struct {
	Flagged    bool
	Categories []string
}

// Moderator checks input against a moderation model.
type Moderator interface {
	Moderate(ctx context.Context, apiKey string, input []string) (*ModerationResult, error)
}

// ModelInfo is one entry of the /v1/models catalogue.
type ModelInfo struct {
	ID                 string   `json:"id"`
	Provider           string   `json:"provider"`
	Type               string   `json:"type"`
	PromptCost         *float64 `json:"promptCost,omitempty"`
	CompletionCost     *float64 `json:"completionCost,omitempty"`
	BasePrice          *float64 `json:"basePrice,omitempty"`
	SupportedSizes     []string `json:"supportedSizes,omitempty"`
	SupportedQualities []string `json:"supportedQualities,omitempty"`
	// PriceTiers are the prices that replace PromptCost and CompletionCost
	// when a call's prompt is longer than their threshold.
	PriceTiers []ModelPriceTier `json:"priceTiers,omitempty"`
	// ContextWindow is the model's context size in tokens (0: not known).
	ContextWindow int `json:"contextWindow,omitempty"`
	// Retired is set when the provider no longer serves the model.
	Retired *ModelRetirement `json:"retired,omitempty"`
	// CachePricing is what the provider bills for prompt tokens read from
	// or written to its prompt cache, as multiples of the prompt price of
	// the call's tier.
	CachePricing *ModelCachePricing `json:"cachePricing,omitempty"`
	// PriceEstimated marks prices not taken from the provider's own page.
	PriceEstimated bool `json:"priceEstimated,omitempty"`
	// Source is where the entry comes from: "builtin" (the catalogue
	// compiled into Hearth) or "operator" (the HEARTH_MODELS_FILE).
	Source string `json:"source,omitempty"`
}

// ModelCachePricing is the price of prompt-cache reads and writes as
// multiples of the prompt price (1: the plain input price).
type ModelCachePricing struct {
	Read    float64 `json:"read"`
	Write5m float64 `json:"write5m"`
	Write1h float64 `json:"write1h"`
}

// ModelPriceTier is the USD price per million tokens of calls whose
// prompt is longer than AbovePromptTokens tokens.
type ModelPriceTier struct {
	AbovePromptTokens int     `json:"abovePromptTokens"`
	PromptCost        float64 `json:"promptCost"`
	CompletionCost    float64 `json:"completionCost"`
}

// ModelRetirement says when a provider stopped serving a model and which
// model it suggests instead.
type ModelRetirement struct {
	Date        string `json:"date"`
	Replacement string `json:"replacement,omitempty"`
}

// ModelRef is a parsed "provider:model_id".
type ModelRef struct {
	Provider string
	Model    string
}

func (m ModelRef) String() string { return m.Provider + ":" + m.Model }

// ParseModelID splits "provider:model_id". field names the request field for the error.
func ParseModelID(field, id string) (ModelRef, error) {
	i := strings.IndexByte(id, ':')
	if i <= 0 || i == len(id)-1 {
		return ModelRef{}, FieldError(field, "model id %q must have the form provider:model_id", id)
	}
	return ModelRef{Provider: strings.ToLower(id[:i]), Model: id[i+1:]}, nil
}

// Providers is the registry of configured providers, consumed by runs,
// ingestion and the catalogue. Lookups return a BAD_REQUEST naming the
// model when the provider is unknown or lacks the capability.
type Providers interface {
	ChatModel(ref ModelRef) (ChatModel, error)
	Embedder(ref ModelRef) (Embedder, error)
	Moderator(provider string) (Moderator, error)
	// ServerKey returns the server-wide key for a provider (HEARTH_<P>_API_KEY), if any.
	ServerKey(provider string) string
	// NeedsKey reports whether calls to the provider require a key.
	NeedsKey(provider string) bool
	// Known reports whether a provider is configured (has any capability).
	Known(provider string) bool
	// Cost returns the USD list price of a text call; ok is false when the
	// model has no price in the catalogue.
	Cost(ref ModelRef, promptTokens, completionTokens int) (usd float64, ok bool)
	Catalogue() map[string][]ModelInfo
}

// UsageCoster is a Providers that prices a call's whole usage, cached
// prompt tokens at the provider's cache-read price; costOf asks it
// instead of Cost.
type UsageCoster interface {
	CostOf(ref ModelRef, u *Usage) (usd float64, ok bool)
}

// costOf prices u with p, through CostOf when p has it and u has cached
// tokens (a copy of u goes to CostOf, so u itself never escapes).
func costOf(p Providers, ref ModelRef, u *Usage) (float64, bool) {
	if uc, ok := p.(UsageCoster); ok && u.CachedTokens() > 0 {
		v := *u
		return uc.CostOf(ref, &v)
	}
	return p.Cost(ref, u.PromptTokens, u.CompletionTokens)
}
