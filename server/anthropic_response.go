package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// messagesResponse is a Messages API answer (type "message").
type messagesResponse struct {
	ID           string          `json:"id"`
	Type         string          `json:"type"`
	Role         string          `json:"role"`
	Model        string          `json:"model"`
	Content      []any           `json:"content"`
	StopReason   *string         `json:"stop_reason"`
	StopSequence *string         `json:"stop_sequence"`
	Usage        messagesUsage   `json:"usage"`
	Container    json.RawMessage `json:"container,omitempty"`
}

// messagesUsage is the usage of a Messages answer. input_tokens excludes
// the tokens read from the prompt cache, as Anthropic counts them.
type messagesUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type toolUseBlock struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// usageOf turns canonical usage into Anthropic's: the prompt tokens less
// those read from and written to the cache, which are counted apart.
func usageOf(u *engine.Usage) messagesUsage {
	if u == nil {
		return messagesUsage{}
	}
	out := messagesUsage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
	if d := u.PromptTokensDetails; d != nil && d.CachedTokens > 0 && d.CachedTokens <= out.InputTokens {
		out.CacheReadInputTokens = d.CachedTokens
		out.InputTokens -= d.CachedTokens
	}
	if n := u.CacheCreationTokens; n > 0 && n <= out.InputTokens {
		out.CacheCreationInputTokens = n
		out.InputTokens -= n
	}
	return out
}

// stopReasonOf maps a finish_reason (and the stop sequence that ended
// the answer, when the provider said) to a stop_reason.
func stopReasonOf(finish, stopSeq string) string {
	switch finish {
	case "stop":
		if stopSeq != "" {
			return "stop_sequence"
		}
		return "end_turn"
	case "length":
		return "max_tokens"
	case "tool_calls", "function_call":
		return "tool_use"
	case "content_filter":
		return "refusal"
	default:
		return "end_turn"
	}
}

// messageID is the id of a Messages answer: the upstream's when it is
// Anthropic's, else msg_ and the upstream's.
func messageID(ctx context.Context, id string) string {
	if strings.HasPrefix(id, "msg_") {
		return id
	}
	if id == "" {
		return engine.NewPrefixedID(ctx, "msg_", 24)
	}
	return "msg_" + strings.TrimPrefix(id, "chatcmpl-")
}

// splitExtra takes the anthropic thinking blocks out of a tool call's
// extra_content; rest is what remains for the tool_use id.
func splitExtra(extra json.RawMessage) (thinking []json.RawMessage, rest json.RawMessage) {
	if len(extra) == 0 {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(extra, &m) != nil {
		return nil, extra
	}
	if raw, ok := m["anthropic"]; ok {
		var x struct {
			Thinking []json.RawMessage `json:"thinking"`
		}
		json.Unmarshal(raw, &x)
		thinking = x.Thinking
		delete(m, "anthropic")
	}
	if len(m) == 0 {
		return thinking, nil
	}
	rest, _ = json.Marshal(m)
	return thinking, rest
}

// toolInput is a call's arguments as the input object of a tool_use block.
func toolInput(args string) json.RawMessage {
	b := []byte(strings.TrimSpace(args))
	if len(b) > 0 && b[0] == '{' && json.Valid(b) {
		return b
	}
	return json.RawMessage(`{}`)
}

// toolUseID is the tool_use id of call i of message msgID.
func toolUseID(msgID string, i int, tc engine.ToolCall, rest json.RawMessage) string {
	id := tc.ID
	if id == "" {
		id = fmt.Sprintf("toolu_%s_%d", strings.TrimPrefix(msgID, "msg_"), i)
	}
	return encodeToolID(id, rest)
}

// messageOf turns a chat completion into a Messages answer for model.
func messageOf(ctx context.Context, resp *engine.ChatResponse, model string) messagesResponse {
	out := messagesResponse{ID: messageID(ctx, resp.ID), Type: "message", Role: "assistant", Model: model, Content: []any{}, Usage: usageOf(&resp.Usage)}
	reason := "end_turn"
	if len(resp.Choices) > 0 {
		ch := resp.Choices[0]
		reason = stopReasonOf(ch.FinishReason, ch.StopSequence)
		if ch.StopSequence != "" {
			seq := ch.StopSequence
			out.StopSequence = &seq
		}
		for _, t := range ch.Message.Thinking {
			out.Content = append(out.Content, t)
		}
		var tools []any
		for i, tc := range ch.Message.ToolCalls {
			thinking, rest := splitExtra(tc.ExtraContent)
			for _, t := range thinking {
				out.Content = append(out.Content, t)
			}
			tools = append(tools, toolUseBlock{Type: "tool_use", ID: toolUseID(out.ID, i, tc, rest), Name: tc.Function.Name, Input: toolInput(tc.Function.Arguments)})
		}
		if c := ch.Message.Content; c != nil && *c != "" {
			out.Content = append(out.Content, textBlock{Type: "text", Text: *c})
		}
		out.Content = append(out.Content, tools...)
		if len(tools) > 0 && reason == "end_turn" {
			reason = "tool_use"
		}
	}
	out.StopReason = &reason
	return out
}
