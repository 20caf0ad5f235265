package providers

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// OpenAI is the adapter for OpenAI and every OpenAI-compatible host: chat
// completions (plain and SSE), embeddings and moderations. The host's
// quirks decide which request parameters are dropped or mapped.
type OpenAI struct {
	host    *host
	baseURL string
	// chatURL is baseURL+"/chat/completions", joined once rather than on
	// every call.
	chatURL string
	c       caller
}

// chatCompletionsURL is the chat completions endpoint of o.
func (o *OpenAI) chatCompletionsURL() string {
	if o.chatURL == "" {
		return o.baseURL + "/chat/completions"
	}
	return o.chatURL
}

var (
	_ engine.ChatModel = (*OpenAI)(nil)
	_ engine.Embedder  = (*OpenAI)(nil)
	_ engine.Moderator = (*OpenAI)(nil)
)

type oaiStreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type oaiReasoning struct {
	Effort string `json:"effort"`
}

// oaiRequest is the chat completions request body.
type oaiRequest struct {
	Model               string                 `json:"model"`
	Messages            []oaiMessage           `json:"messages"`
	Tools               []engine.Tool          `json:"tools,omitempty"`
	ToolChoice          any                    `json:"tool_choice,omitempty"`
	ParallelToolCalls   *bool                  `json:"parallel_tool_calls,omitempty"`
	Temperature         *float64               `json:"temperature,omitempty"`
	TopP                *float64               `json:"top_p,omitempty"`
	MaxTokens           *int                   `json:"max_tokens,omitempty"`
	MaxCompletionTokens *int                   `json:"max_completion_tokens,omitempty"`
	PresencePenalty     *float64               `json:"presence_penalty,omitempty"`
	FrequencyPenalty    *float64               `json:"frequency_penalty,omitempty"`
	Stop                []string               `json:"stop,omitempty"`
	ResponseFormat      *engine.ResponseFormat `json:"response_format,omitempty"`
	ReasoningEffort     string                 `json:"reasoning_effort,omitempty"`
	Reasoning           *oaiReasoning          `json:"reasoning,omitempty"`
	Stream              bool                   `json:"stream,omitempty"`
	StreamOptions       *oaiStreamOptions      `json:"stream_options,omitempty"`
}

// encodeOpenAIChat is the body of a chat completion request for req: the
// request built for the host, encoded by encoding/json, with the custom
// model parameters merged in.
func encodeOpenAIChat(h *host, req *engine.ChatRequest, stream bool) ([]byte, error) {
	return marshalWithExtra(buildOpenAIRequest(h, req, stream), hostExtra(h, req.Extra, hostAdditions(h, req)))
}

// buildOpenAIRequest applies the host's quirks to req. It never mutates req.
func buildOpenAIRequest(h *host, req *engine.ChatRequest, stream bool) *oaiRequest {
	msgs := openAIMessages(h, req.Messages)
	if rf := req.ResponseFormat; rf != nil && rf.Type == "json_schema" && h.jsonSchema == "json_object" {
		msgs = withSchemaPrompt(msgs, rf)
	}
	if h.shortToolIDs {
		msgs = mistralMessages(msgs)
	}
	r := &oaiRequest{Model: req.Model, Messages: openAIWireMessages(h, msgs), Stop: req.Stop,
		Temperature: req.Temperature, TopP: req.TopP, Stream: stream}
	if req.MaxTokens != nil {
		if h.maxTokensField == "max_completion_tokens" {
			r.MaxCompletionTokens = req.MaxTokens
		} else {
			r.MaxTokens = req.MaxTokens
		}
	}
	if !h.noPenalties {
		r.PresencePenalty, r.FrequencyPenalty = req.PresencePenalty, req.FrequencyPenalty
		if h.exclusivePenalties && r.PresencePenalty != nil && r.FrequencyPenalty != nil {
			r.FrequencyPenalty = nil
		}
		if h.local {
			r.PresencePenalty, r.FrequencyPenalty = unlessPipeDefault(r.PresencePenalty), unlessPipeDefault(r.FrequencyPenalty)
		}
	}
	if len(req.Tools) > 0 && !h.noTools {
		r.Tools = req.Tools
		if !h.noParallelToolCalls {
			r.ParallelToolCalls = req.ParallelToolCalls
		}
		if req.ToolChoice != nil && !h.noToolChoice {
			r.ToolChoice = openAIToolChoice(h, req.ToolChoice)
		}
	}
	if rf := req.ResponseFormat; rf != nil {
		switch rf.Type {
		case "json_schema":
			switch h.jsonSchema {
			case "":
				r.ResponseFormat = rf
			case "json_object":
				r.ResponseFormat = &engine.ResponseFormat{Type: "json_object"}
			}
		case "json_object":
			if !h.noJSONObject {
				r.ResponseFormat = rf
			}
		default:
			r.ResponseFormat = rf
		}
	}
	rule := h.rule(req.Model)
	applyRule(r, rule)
	if e := effortFor(h, rule, req.ReasoningEffort, len(r.Tools) > 0); e != "" {
		switch h.reasoningField {
		case "reasoning_effort":
			r.ReasoningEffort = e
		case "reasoning":
			r.Reasoning = &oaiReasoning{Effort: e}
		}
	}
	if stream && h.streamUsage {
		r.StreamOptions = &oaiStreamOptions{IncludeUsage: true}
	}
	return r
}

// applyRule drops what the model's rule rejects and gives reasoning
// models an output budget their hidden reasoning does not exhaust.
func applyRule(r *oaiRequest, rule *modelRule) {
	if rule == nil {
		return
	}
	if rule.drops(pTemperature) {
		r.Temperature = nil
	}
	if rule.drops(pTopP) {
		r.TopP = nil
	}
	if rule.drops(pPresencePenalty) {
		r.PresencePenalty = nil
	}
	if rule.drops(pFrequencyPenalty) {
		r.FrequencyPenalty = nil
	}
	if rule.drops(pStop) {
		r.Stop = nil
	}
	if rule.noParallelToolCalls {
		r.ParallelToolCalls = nil
	}
	if rule.reasoningMaxTokens > 0 {
		for _, p := range []**int{&r.MaxTokens, &r.MaxCompletionTokens} {
			if *p != nil && **p == langbaseDefaultMaxTokens {
				n := rule.reasoningMaxTokens
				*p = &n
			}
		}
	}
}

func openAIToolChoice(h *host, tc *engine.ToolChoice) any {
	if tc.Function != "" {
		return tc
	}
	if tc.Mode == "required" && h.toolChoiceRequired != "" {
		return h.toolChoiceRequired
	}
	if tc.Mode == "" || tc.Mode == "invalid" {
		return nil
	}
	return tc.Mode
}

// openAIMessages returns msgs, copied only when the host needs a change
// (role "developer" on hosts that only know "system").
func openAIMessages(h *host, msgs []engine.Message) []engine.Message {
	if h.developerRole {
		return msgs
	}
	var out []engine.Message
	for i, m := range msgs {
		if m.Role == "developer" {
			if out == nil {
				out = append([]engine.Message(nil), msgs...)
			}
			out[i].Role = "system"
		}
	}
	if out == nil {
		return msgs
	}
	return out
}

func (o *OpenAI) headers(apiKey string) func(http.Header) {
	return func(hd http.Header) { o.c.setBearer(hd, apiKey) }
}

// Chat sends a non-stream chat completion.
func (o *OpenAI) Chat(ctx context.Context, req *engine.ChatRequest) (*engine.ChatResponse, error) {
	body, err := encodeOpenAIChat(o.host, req, false)
	if err != nil {
		return nil, err
	}
	call, err := o.c.post(ctx, o.chatCompletionsURL(), body, false, o.headers(req.APIKey))
	if err != nil {
		return nil, err
	}
	resp, src, err := decodeOpenAIResponse(o.host, call)
	if err != nil {
		return nil, err
	}
	if resp.Object == "" {
		resp.Object = "chat.completion"
	}
	for i := range resp.Choices {
		if resp.Choices[i].Message.Role == "" {
			resp.Choices[i].Message.Role = "assistant"
		}
		m := &resp.Choices[i].Message
		if len(m.Annotations) == 0 && !src.empty() {
			text := ""
			if m.Content != nil {
				text = *m.Content
			}
			m.Annotations = src.annotations(text)
		}
		if m.Annotations == nil {
			m.Annotations = []any{}
		}
	}
	return resp, nil
}

// ChatStream starts an SSE chat completion. Chunks are passed through as
// the host sends them; the stream is complete at "data: [DONE]" (or at the
// end of the body after a finish_reason, for hosts that omit [DONE]).
func (o *OpenAI) ChatStream(ctx context.Context, req *engine.ChatRequest) (engine.ChatStream, error) {
	body, err := encodeOpenAIChat(o.host, req, true)
	if err != nil {
		return nil, err
	}
	call, err := o.c.post(ctx, o.chatCompletionsURL(), body, true, o.headers(req.APIKey))
	if err != nil {
		return nil, err
	}
	x := &oaiStream{o: o}
	x.sseStream = sseStream{provider: o.host.name, call: call, sse: &x.rd, queue: x.queueBuf[:0], tr: x}
	x.rd.init(call.resp.Body, x.dataBuf[:0])
	return &x.sseStream, nil
}

// oaiStream is one OpenAI stream in one allocation: the shared SSE
// machinery, its reader, the first backing arrays of its queue and data
// buffer, and the pass-through's state.
type oaiStream struct {
	sseStream
	o        *OpenAI
	st       oaiStreamState
	rd       sseReader
	queueBuf [1]*engine.ChatChunk
	dataBuf  [sseDataSize]byte
}

func (x *oaiStream) translateEvent(_, data []byte) error {
	return x.o.translate(&x.sseStream, &x.st, data)
}

// oaiStreamState keeps what the pass-through must repair: hosts that omit
// the role on their first delta get it added, and a host that changes the
// chunk id mid-stream is kept on the first id (clients read a new id as a
// new completion).
type oaiStreamState struct {
	id        string
	roleSeen  bool
	reasoning oaiReasoningState
	// text is the answer so far and cited is set once the web sources
	// went out as annotations, on the delta that finishes the answer.
	text  strings.Builder
	cited bool
	// src is the latest web sources a chunk carried.
	src webSources
	// strs keeps the strings every chunk repeats, allocated once.
	strs chunkStrings
}

type oaiStreamEvent struct {
	engine.ChatChunk
	webSources
	Error json.RawMessage `json:"error"`
}

func (o *OpenAI) translate(s *sseStream, st *oaiStreamState, data []byte) error {
	if string(data) == "[DONE]" {
		s.finished = true
		return nil
	}
	if o.host.contentChunks {
		data = flattenContent(data)
	}
	ev, err := decodeChunk(data, &st.strs)
	if err != nil {
		return badStreamData(o.host.name, err)
	}
	if len(ev.Error) > 0 && string(ev.Error) != "null" {
		var e struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		}
		if json.Unmarshal(ev.Error, &e) != nil {
			e.Message = string(ev.Error)
		}
		return streamEventError(o.host.name, e.Type, e.Message)
	}
	c := &ev.ChatChunk
	if o.host.echoReasoning || o.host.contentChunks {
		st.reasoning.take(data, c, o.host.reasoningKey())
	}
	if o.host.contentChunks && c.Usage != nil {
		estimateReasoningTokens(c.Usage, st.reasoning.text.Len())
	}
	if c.Object == "" {
		c.Object = "chat.completion.chunk"
	}
	if c.Choices == nil {
		c.Choices = []engine.ChunkChoice{}
	}
	if st.id == "" {
		st.id = c.ID
	} else if c.ID != st.id {
		c.ID = st.id
	}
	if !ev.webSources.empty() {
		st.src = ev.webSources
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if !st.roleSeen {
			if ch.Delta.Role == "" {
				ch.Delta.Role = "assistant"
			}
			st.roleSeen = true
		}
		if ch.Index == 0 && ch.Delta.Content != nil && *ch.Delta.Content != "" {
			if st.text.Cap() == 0 {
				st.text.Grow(engine.AnswerTextSize)
			}
			st.text.WriteString(*ch.Delta.Content)
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			s.cleanEOF = true
			if ch.Index == 0 && !st.cited && !st.src.empty() && len(ch.Delta.Annotations) == 0 {
				ch.Delta.Annotations = st.src.annotations(st.text.String())
				st.cited = true
			}
		}
	}
	s.emit(c)
	return nil
}

// pipeDefaultPenalty is the presence and frequency penalty of a pipe that
// sets none (https://langbase.com/docs/api-reference/pipe/create).
const pipeDefaultPenalty = 1.0

// unlessPipeDefault is p, or nil when p is the pipe default.
func unlessPipeDefault(p *float64) *float64 {
	if p != nil && *p == pipeDefaultPenalty {
		return nil
	}
	return p
}
