package providers

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// oaiMessage is a chat message on the OpenAI wire: the canonical message
// without the tool calls' extra_content and the Anthropic cache breakpoint,
// plus reasoning_content on hosts whose thinking models need it back.
// Content points at the message's text or parts (see wireContent).
type oaiMessage struct {
	Role             string            `json:"role"`
	Content          any               `json:"content"`
	Name             string            `json:"name,omitempty"`
	ToolCallID       string            `json:"tool_call_id,omitempty"`
	ToolCalls        []engine.ToolCall `json:"tool_calls,omitempty"`
	ReasoningContent *string           `json:"reasoning_content,omitempty"`
}

// wireContent points at the text or parts of m's content (nil when unset),
// which encoding/json writes as Content.MarshalJSON does, without a
// marshaller call and a second pass over its output.
func wireContent(m *engine.Message) any {
	switch c := &m.Content; {
	case !c.Set:
		return nil
	case c.Parts != nil:
		return &c.Parts
	default:
		return &c.Text
	}
}

// dsExtra is the entry of a tool call's extra_content that holds a host's
// reasoning (key "deepseek" or "mistral", see reasoningKey).
type dsExtra struct {
	ReasoningContent string `json:"reasoning_content"`
}

// openAIWireMessages converts msgs for the host. On hosts with
// echoReasoning (DeepSeek), an assistant turn with tool calls gets its
// reasoning_content back: "For turns that do perform tool calls, the
// reasoning_content must be fully passed back to the API in all subsequent
// requests", or the API answers 400
// (https://api-docs.deepseek.com/guides/thinking_mode). A turn Hearth has
// no reasoning for (written by another provider, or by DeepSeek with
// thinking off) gets "": the field must be present in thinking mode
// (reported by a third party, https://github.com/sluisr/deepseek-cli/releases/tag/1.1.1).
func openAIWireMessages(h *host, msgs []engine.Message) []oaiMessage {
	out := make([]oaiMessage, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		out[i] = oaiMessage{Role: m.Role, Content: wireContent(m), Name: m.Name, ToolCallID: m.ToolCallID, ToolCalls: m.ToolCalls}
		if len(m.ToolCalls) == 0 {
			continue
		}
		calls := make([]engine.ToolCall, len(m.ToolCalls))
		reasoning := ""
		for j, tc := range m.ToolCalls {
			var x dsExtra
			if reasoning == "" && extraGet(tc.ExtraContent, "deepseek", &x) {
				reasoning = x.ReasoningContent
			}
			tc.ExtraContent = nil
			calls[j] = tc
		}
		out[i].ToolCalls = calls
		if h.echoReasoning && m.Role == "assistant" {
			out[i].ReasoningContent = &reasoning
		}
	}
	return out
}

// decodeWebSources reads an answer's web sources. A function of its own:
// decoded in place, the caller's sources would move to the heap on every
// answer, with sources or not.
func decodeWebSources(raw []byte) (src webSources) {
	json.Unmarshal(raw, &src)
	return src
}

// mayNameSources reports whether raw holds "citations" or
// "search_results" anywhere.
func mayNameSources(raw []byte) bool {
	return bytes.Contains(raw, []byte(`"citations"`)) || bytes.Contains(raw, []byte(`"search_results"`))
}

// decodeOpenAIResponse reads a chat completion
// (https://platform.openai.com/docs/api-reference/chat/object) in one
// decode; on echoReasoning hosts the reasoning_content of an answer with
// tool calls is kept in the first call's extra_content, for
// openAIWireMessages to send back.
func decodeOpenAIResponse(h *host, call *upstreamCall) (*engine.ChatResponse, webSources, error) {
	var src webSources
	buf, err := readPooled(h.name, call)
	if err != nil {
		return nil, src, err
	}
	defer releaseBody(buf)
	raw := buf.Bytes()
	if h.contentChunks {
		raw = flattenContent(raw)
	}
	resp, reasoning, err := unmarshalAnswer(h, raw)
	if err != nil {
		return nil, src, call.redact(&engine.Error{Code: engine.CodeUpstream, Message: h.name + " sent a response Hearth could not read", Err: err})
	}
	// Web sources are optional extras of some hosts' answers: decoded only
	// when the answer names them, so a plain answer is read once.
	if mayNameSources(raw) {
		src = decodeWebSources(raw)
	}
	for i, r := range reasoning {
		if r == "" {
			continue
		}
		if calls := resp.Choices[i].Message.ToolCalls; len(calls) > 0 {
			calls[0].ExtraContent = extraWith(calls[0].ExtraContent, h.reasoningKey(), dsExtra{ReasoningContent: r})
		}
		if h.contentChunks && i == 0 {
			estimateReasoningTokens(&resp.Usage, len(r))
		}
	}
	return resp, src, nil
}

// reasoningAnswer is a chat completion with each choice's
// reasoning_content, as the hosts that send it (DeepSeek, and Mistral's
// thinking once flattened) write it: the fields of the same name shadow
// the embedded ones, so one decode fills both.
type reasoningAnswer struct {
	engine.ChatResponse
	Choices []reasoningChoice `json:"choices"`
}

// reasoningChoice is a choice whose message carries reasoning_content.
type reasoningChoice struct {
	engine.Choice
	Message struct {
		engine.ResponseMessage
		ReasoningContent string `json:"reasoning_content"`
	} `json:"message"`
}

// unmarshalAnswer decodes raw once: into engine's answer alone, or on
// hosts whose reasoning Hearth keeps (echoReasoning, contentChunks) into
// a reasoningAnswer, returning each choice's reasoning_content too.
func unmarshalAnswer(h *host, raw []byte) (*engine.ChatResponse, []string, error) {
	if !h.echoReasoning && !h.contentChunks {
		resp := new(engine.ChatResponse)
		return resp, nil, json.Unmarshal(raw, resp)
	}
	var a reasoningAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, nil, err
	}
	resp := &a.ChatResponse
	resp.Choices = make([]engine.Choice, len(a.Choices))
	reasoning := make([]string, len(a.Choices))
	for i := range a.Choices {
		c := &a.Choices[i]
		resp.Choices[i] = c.Choice
		resp.Choices[i].Message = c.Message.ResponseMessage
		reasoning[i] = c.Message.ReasoningContent
	}
	if a.Choices == nil {
		resp.Choices = nil
	}
	return resp, reasoning, nil
}

// reasoningKey is the extra_content key under which a host's reasoning
// rides on a tool call: "deepseek" (sent back to DeepSeek, which requires
// it), or the host's name (Mistral: kept, not sent back).
func (h *host) reasoningKey() string {
	if h.echoReasoning {
		return "deepseek"
	}
	return h.name
}

// estimateReasoningTokens sets the reasoning tokens of a usage whose host
// reports none (Mistral counts thinking in completion_tokens without a
// breakdown): the thinking's size at about four bytes a token, at most
// the completion tokens. An estimate, exact only in its total.
func estimateReasoningTokens(u *engine.Usage, thinkingBytes int) {
	if thinkingBytes == 0 || u.CompletionTokens == 0 {
		return
	}
	if d := u.CompletionTokensDetails; d != nil && d.ReasoningTokens > 0 {
		return
	}
	if u.CompletionTokensDetails == nil {
		u.CompletionTokensDetails = &engine.CompletionTokensDetails{}
	}
	u.CompletionTokensDetails.ReasoningTokens = min(u.CompletionTokens, (thinkingBytes+3)/4)
}

// oaiReasoningState collects a stream's reasoning_content deltas (choice
// 0) and puts them on the first tool call's first delta, under key: DeepSeek
// and Mistral stream all reasoning before the answer and its tool calls.
// Each piece also goes on its own chunk as Delta.Reasoning, for surfaces
// that stream reasoning.
type oaiReasoningState struct {
	text     strings.Builder
	attached bool
}

func (r *oaiReasoningState) take(data []byte, c *engine.ChatChunk, key string) {
	var d struct {
		Choices []struct {
			Index int `json:"index"`
			Delta struct {
				ReasoningContent string `json:"reasoning_content"`
			} `json:"delta"`
		} `json:"choices"`
	}
	json.Unmarshal(data, &d)
	for _, ch := range d.Choices {
		if ch.Index == 0 && ch.Delta.ReasoningContent != "" {
			r.text.WriteString(ch.Delta.ReasoningContent)
			for i := range c.Choices {
				if c.Choices[i].Index == 0 {
					c.Choices[i].Delta.Reasoning = &engine.ReasoningDelta{Text: ch.Delta.ReasoningContent}
				}
			}
		}
	}
	if r.attached || r.text.Len() == 0 {
		return
	}
	for i := range c.Choices {
		if c.Choices[i].Index != 0 {
			continue
		}
		for j := range c.Choices[i].Delta.ToolCalls {
			tc := &c.Choices[i].Delta.ToolCalls[j]
			if tc.ID != "" && (tc.Index == nil || *tc.Index == 0) {
				tc.ExtraContent = extraWith(tc.ExtraContent, key, dsExtra{ReasoningContent: r.text.String()})
				r.attached = true
			}
		}
	}
}
