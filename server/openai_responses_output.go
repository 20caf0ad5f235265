package server

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// responseObject is a response of the Responses API
// (https://platform.openai.com/docs/api-reference/responses/object).
type responseObject struct {
	ID                 string             `json:"id"`
	Object             string             `json:"object"`
	CreatedAt          int64              `json:"created_at"`
	Status             string             `json:"status"`
	Background         bool               `json:"background"`
	Error              *responseError     `json:"error"`
	IncompleteDetails  *incompleteDetails `json:"incomplete_details"`
	Instructions       *string            `json:"instructions"`
	MaxOutputTokens    *int               `json:"max_output_tokens"`
	Model              string             `json:"model"`
	Output             []any              `json:"output"`
	ParallelToolCalls  bool               `json:"parallel_tool_calls"`
	PreviousResponseID *string            `json:"previous_response_id"`
	Reasoning          responsesReasoning `json:"reasoning"`
	Store              bool               `json:"store"`
	Temperature        *float64           `json:"temperature"`
	Text               responseTextView   `json:"text"`
	ToolChoice         json.RawMessage    `json:"tool_choice"`
	Tools              []json.RawMessage  `json:"tools"`
	TopP               *float64           `json:"top_p"`
	Truncation         string             `json:"truncation"`
	Usage              *responseUsage     `json:"usage"`
	User               *string            `json:"user"`
	Metadata           map[string]string  `json:"metadata"`
}

// responseError is the error of a failed response.
type responseError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// incompleteDetails says why a response stopped early.
type incompleteDetails struct {
	Reason string `json:"reason"`
}

// responseTextView is the text field of a response: its output format.
type responseTextView struct {
	Format json.RawMessage `json:"format"`
}

// responseUsage is the token usage of a response.
type responseUsage struct {
	InputTokens        int `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int `json:"total_tokens"`
}

// responsesUsage converts chat usage, cached and reasoning tokens included.
func responsesUsage(u *engine.Usage) *responseUsage {
	out := &responseUsage{}
	if u == nil {
		return out
	}
	out.InputTokens, out.OutputTokens, out.TotalTokens = u.PromptTokens, u.CompletionTokens, u.TotalTokens
	if out.TotalTokens == 0 {
		out.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	if d := u.PromptTokensDetails; d != nil {
		out.InputTokensDetails.CachedTokens = d.CachedTokens
	}
	if d := u.CompletionTokensDetails; d != nil {
		out.OutputTokensDetails.ReasoningTokens = d.ReasoningTokens
	}
	return out
}

// outputMessage is an assistant message output item.
type outputMessage struct {
	ID      string       `json:"id"`
	Type    string       `json:"type"`
	Status  string       `json:"status"`
	Role    string       `json:"role"`
	Content []outputText `json:"content"`
}

// outputText is an output_text content part.
type outputText struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Annotations []any  `json:"annotations"`
	Logprobs    []any  `json:"logprobs"`
}

func newOutputText(s string) outputText {
	return outputText{Type: "output_text", Text: s, Annotations: []any{}, Logprobs: []any{}}
}

// outputCall is a function_call output item.
type outputCall struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Status    string `json:"status"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	// Namespace names the namespace tool the function belongs to.
	Namespace string `json:"namespace,omitempty"`
}

// outputReasoning is a reasoning output item: the model's reasoning as
// summary text, or the provider state of the calls (see encodeReasoning).
type outputReasoning struct {
	ID               string  `json:"id"`
	Type             string  `json:"type"`
	Summary          []any   `json:"summary"`
	EncryptedContent *string `json:"encrypted_content"`
}

// summaryText is a summary_text part of a reasoning item.
type summaryText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// finishStatus maps a chat finish reason to the response status and,
// for an incomplete one, its reason.
func finishStatus(finish string) (string, *incompleteDetails) {
	switch finish {
	case "length":
		return "incomplete", &incompleteDetails{Reason: "max_output_tokens"}
	case "content_filter":
		return "incomplete", &incompleteDetails{Reason: "content_filter"}
	}
	return "completed", nil
}

// chatOutput builds the output items of a whole chat answer: the message
// (when it has text or calls nothing, so there is always an item), the
// function calls, and a
// reasoning item with the calls' provider state when they carry any.
func chatOutput(ctx context.Context, tm *toolMap, resp *engine.ChatResponse) (items []any, msg engine.Message, finish string) {
	items = []any{}
	msg = engine.Message{Role: "assistant"}
	if len(resp.Choices) == 0 {
		return items, msg, "stop"
	}
	ch := resp.Choices[0]
	finish = ch.FinishReason
	if text := reasoningSummary(&ch.Message); text != "" {
		items = append(items, outputReasoning{ID: engine.NewPrefixedID(ctx, "rs_", 24), Type: "reasoning",
			Summary: []any{summaryText{Type: "summary_text", Text: text}}})
	}
	if c := ch.Message.Content; (c != nil && *c != "") || len(ch.Message.ToolCalls) == 0 {
		text := ""
		if c != nil {
			text = *c
		}
		msg.Content = engine.TextContent(text)
		items = append(items, outputMessage{ID: engine.NewPrefixedID(ctx, "msg_", 24), Type: "message", Status: "completed", Role: "assistant",
			Content: []outputText{newOutputText(text)}})
	}
	extra := map[string]json.RawMessage{}
	for _, tc := range ch.Message.ToolCalls {
		tc.Index = nil
		if tc.Type == "" {
			tc.Type = "function"
		}
		msg.ToolCalls = append(msg.ToolCalls, tc)
		items = append(items, tm.callItem(ctx, "", "completed", &tc))
		if len(tc.ExtraContent) > 0 {
			extra[tc.ID] = tc.ExtraContent
		}
	}
	if len(extra) > 0 {
		items = append(items, outputReasoning{ID: engine.NewPrefixedID(ctx, "rs_", 24), Type: "reasoning", Summary: []any{}, EncryptedContent: encodeReasoning(extra)})
	}
	return items, msg, finish
}

// reasoningSummary is the reasoning text of a whole answer: its thinking
// blocks, or those (and DeepSeek's reasoning_content) its tool calls
// carry in their provider state.
func reasoningSummary(m *engine.ResponseMessage) string {
	var b strings.Builder
	blocks := func(raws []json.RawMessage) {
		for _, raw := range raws {
			var blk struct {
				Type     string `json:"type"`
				Thinking string `json:"thinking"`
			}
			if json.Unmarshal(raw, &blk) == nil && blk.Type == "thinking" {
				b.WriteString(blk.Thinking)
			}
		}
	}
	blocks(m.Thinking)
	for _, tc := range m.ToolCalls {
		var byProvider map[string]struct {
			Thinking         []json.RawMessage `json:"thinking"`
			ReasoningContent string            `json:"reasoning_content"`
		}
		if json.Unmarshal(tc.ExtraContent, &byProvider) != nil {
			continue
		}
		for _, x := range byProvider {
			blocks(x.Thinking)
			b.WriteString(x.ReasoningContent)
		}
	}
	return b.String()
}
