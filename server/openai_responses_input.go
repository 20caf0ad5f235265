package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// responsesInput is the input of a response read into chat messages.
type responsesInput struct {
	// msgs are the chat messages of the input, in order.
	msgs []engine.Message
	// items are the input items as GET .../input_items lists them: as
	// sent, each with an id and a type.
	items []json.RawMessage
}

// reasoningPrefix starts the encrypted_content of the reasoning items
// Hearth writes: base64 of a JSON object from call_id to the call's
// extra_content (thinking blocks, thought signatures). It is opaque
// provider state, not encrypted: clients echo it back unchanged.
const reasoningPrefix = "hearth.v1:"

// encodeReasoning is the encrypted_content carrying the calls' extra content.
func encodeReasoning(extra map[string]json.RawMessage) *string {
	b, _ := json.Marshal(extra)
	s := reasoningPrefix + base64.StdEncoding.EncodeToString(b)
	return &s
}

// decodeReasoning reads encodeReasoning's text; ok is false for content
// Hearth did not write (another server's reasoning), which is ignored.
func decodeReasoning(s string) (map[string]json.RawMessage, bool) {
	rest, ok := strings.CutPrefix(s, reasoningPrefix)
	if !ok {
		return nil, false
	}
	b, err := base64.StdEncoding.DecodeString(rest)
	var m map[string]json.RawMessage
	if err != nil || json.Unmarshal(b, &m) != nil {
		return nil, false
	}
	return m, true
}

// inputMessageItem is the input item a string input stands for.
type inputMessageItem struct {
	ID      string          `json:"id"`
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Status  string          `json:"status"`
	Content []inputTextPart `json:"content"`
}

// inputTextPart is an input_text content part.
type inputTextPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// inputItem is the union of the input item fields Hearth reads.
type inputItem struct {
	Type             string          `json:"type"`
	ID               json.RawMessage `json:"id"`
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	CallID           string          `json:"call_id"`
	Name             string          `json:"name"`
	Namespace        string          `json:"namespace"`
	Arguments        *string         `json:"arguments"`
	Input            *string         `json:"input"`
	Output           json.RawMessage `json:"output"`
	EncryptedContent *string         `json:"encrypted_content"`
	ExtraContent     json.RawMessage `json:"extra_content"`
}

// readResponsesInput reads input: a string (one user message) or a list
// of items (messages, function_call, function_call_output, reasoning).
// Consecutive function calls, and a call right after an assistant
// message, form one assistant message with tool calls, as chat
// completions carry them.
func readResponsesInput(ctx context.Context, raw json.RawMessage) (*responsesInput, error) {
	in := &responsesInput{}
	switch engine.JSONKind(raw) {
	case "string":
		var s string
		json.Unmarshal(raw, &s)
		in.msgs = []engine.Message{{Role: "user", Content: engine.TextContent(s)}}
		item, _ := json.Marshal(inputMessageItem{ID: engine.NewPrefixedID(ctx, "msg_", 24), Type: "message", Role: "user", Status: "completed",
			Content: []inputTextPart{{Type: "input_text", Text: s}}})
		in.items = []json.RawMessage{item}
		return in, nil
	case "array":
	default:
		return nil, engine.FieldError("input", "is required: a string or an array of input items, got %s", engine.JSONKind(raw))
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(raw, &raws); err != nil || len(raws) == 0 {
		return nil, engine.FieldError("input", "must hold at least one item")
	}
	if len(raws) > engine.MaxRunMessages {
		return nil, engine.FieldError("input", "at most %d items", engine.MaxRunMessages)
	}
	extras := map[string]json.RawMessage{}
	for i, r := range raws {
		f := elemName("input", i)
		var it inputItem
		if engine.JSONKind(r) != "object" || json.Unmarshal(r, &it) != nil {
			return nil, engine.FieldError(f, "must be an input item object {type, ...}")
		}
		if it.Type == "" && it.Role != "" {
			it.Type = "message"
		}
		if err := in.add(ctx, f, &it, extras); err != nil {
			return nil, err
		}
		in.items = append(in.items, withItemID(ctx, r, &it))
	}
	for i := range in.msgs {
		for j := range in.msgs[i].ToolCalls {
			c := &in.msgs[i].ToolCalls[j]
			if x, ok := extras[c.ID]; ok && len(c.ExtraContent) == 0 {
				c.ExtraContent = x
			}
		}
	}
	return in, nil
}

// add reads one item into the chat messages.
func (in *responsesInput) add(ctx context.Context, f string, it *inputItem, extras map[string]json.RawMessage) error {
	switch it.Type {
	case "message":
		m, err := itemMessage(f, it)
		if err != nil {
			return err
		}
		in.msgs = append(in.msgs, m)
	case "function_call", "custom_tool_call":
		call, err := itemCall(f, it)
		if err != nil {
			return err
		}
		if n := len(in.msgs); n > 0 && in.msgs[n-1].Role == "assistant" {
			in.msgs[n-1].ToolCalls = append(in.msgs[n-1].ToolCalls, call)
		} else {
			in.msgs = append(in.msgs, engine.Message{Role: "assistant", ToolCalls: []engine.ToolCall{call}})
		}
	case "function_call_output", "custom_tool_call_output":
		if it.CallID == "" {
			return engine.FieldError(f+".call_id", "is required")
		}
		out, err := callOutput(f+".output", it.Output)
		if err != nil {
			return err
		}
		in.msgs = append(in.msgs, engine.Message{Role: "tool", ToolCallID: it.CallID, Content: engine.TextContent(out)})
	case "reasoning":
		if it.EncryptedContent != nil {
			if m, ok := decodeReasoning(*it.EncryptedContent); ok {
				for k, v := range m {
					extras[k] = v
				}
			}
		}
	case "web_search_call":
		// A hosted search of an earlier OpenAI turn: its results are in
		// the message after it, so it is left out.
	case "item_reference":
		return engine.FieldError(f+".type", "item_reference items are not supported: send the item itself, or continue with previous_response_id")
	case "":
		return engine.FieldError(f+".type", "is required (message, function_call, function_call_output, custom_tool_call, custom_tool_call_output or reasoning)")
	default:
		return engine.FieldError(f+".type", "%q items are not supported: Hearth reads message, function_call, function_call_output, custom_tool_call, custom_tool_call_output and reasoning items (calls of built-in tools are refused: %s)", it.Type, refusedTools)
	}
	return nil
}

// itemCall reads a function_call item (a namespace function's name
// joined to its namespace) or a custom_tool_call item (its free-text
// input as the argument "input") into a tool call.
func itemCall(f string, it *inputItem) (engine.ToolCall, error) {
	var call engine.ToolCall
	if it.CallID == "" {
		return call, engine.FieldError(f+".call_id", "is required")
	}
	if it.Name == "" {
		return call, engine.FieldError(f+".name", "is required")
	}
	if k := engine.JSONKind(it.ExtraContent); k != "null" && k != "object" {
		return call, engine.FieldError(f+".extra_content", "must be a JSON object, got %s", k)
	}
	call = engine.ToolCall{ID: it.CallID, Type: "function", Function: engine.FunctionCall{Name: chatToolName(it.Namespace, it.Name)}}
	if it.Type == "custom_tool_call" {
		if it.Input == nil {
			return call, engine.FieldError(f+".input", "is required (the call's free-text input)")
		}
		args, _ := json.Marshal(map[string]string{"input": *it.Input})
		call.Function.Arguments = string(args)
	} else {
		if it.Arguments == nil {
			return call, engine.FieldError(f+".arguments", "is required (the call's JSON arguments as a string)")
		}
		call.Function.Arguments = *it.Arguments
	}
	if engine.JSONKind(it.ExtraContent) == "object" {
		call.ExtraContent = it.ExtraContent
	}
	return call, nil
}

// itemMessage reads a message item: role user, assistant, system or
// developer (read as system), content a string or input_text,
// output_text, refusal and input_image parts.
func itemMessage(f string, it *inputItem) (engine.Message, error) {
	m := engine.Message{Role: it.Role}
	switch it.Role {
	case "user", "assistant", "system":
	case "developer":
		m.Role = "system"
	case "":
		return m, engine.FieldError(f+".role", "is required (user, assistant, system or developer)")
	default:
		return m, engine.FieldError(f+".role", "must be user, assistant, system or developer, got %q", it.Role)
	}
	switch engine.JSONKind(it.Content) {
	case "string":
		var s string
		json.Unmarshal(it.Content, &s)
		m.Content = engine.TextContent(s)
		return m, nil
	case "array":
	default:
		return m, engine.FieldError(f+".content", "is required: a string or an array of content parts, got %s", engine.JSONKind(it.Content))
	}
	var parts []struct {
		Type     string  `json:"type"`
		Text     *string `json:"text"`
		Refusal  *string `json:"refusal"`
		ImageURL *string `json:"image_url"`
		FileID   *string `json:"file_id"`
		Detail   string  `json:"detail"`
	}
	if json.Unmarshal(it.Content, &parts) != nil {
		return m, engine.FieldError(f+".content", "must be an array of content parts {type, text | image_url}")
	}
	out := make([]engine.ContentPart, 0, len(parts))
	for j, p := range parts {
		fp := elemName(f+".content", j)
		switch p.Type {
		case "input_text", "output_text", "text":
			if p.Text == nil {
				return m, engine.FieldError(fp+".text", "is required on %s parts", p.Type)
			}
			out = append(out, engine.ContentPart{Type: "text", Text: *p.Text})
		case "refusal":
			if p.Refusal != nil {
				out = append(out, engine.ContentPart{Type: "text", Text: *p.Refusal})
			}
		case "input_image":
			if p.ImageURL == nil || *p.ImageURL == "" {
				if p.FileID != nil {
					return m, engine.FieldError(fp+".file_id", "uploaded files are not supported: send image_url (an https: or data: URL)")
				}
				return m, engine.FieldError(fp+".image_url", "is required on input_image parts (an https: or data: URL)")
			}
			switch p.Detail {
			case "", "auto", "low", "high":
			default:
				return m, engine.FieldError(fp+".detail", "must be auto, low or high, got %q", p.Detail)
			}
			out = append(out, engine.ContentPart{Type: "image_url", ImageURL: &engine.ImageURL{URL: *p.ImageURL, Detail: p.Detail}})
		case "":
			return m, engine.FieldError(fp+".type", "is required (input_text, input_image or output_text)")
		default:
			return m, engine.FieldError(fp+".type", "must be input_text, input_image or output_text, got %q", p.Type)
		}
	}
	m.Content = engine.Content{Parts: out, Set: true}
	if m.Role == "assistant" || allText(out) {
		m.Content = engine.TextContent(m.Content.String())
	}
	return m, engine.ValidateMessage(f, m)
}

// allText reports whether every part is text.
func allText(parts []engine.ContentPart) bool {
	for _, p := range parts {
		if p.Type != "text" {
			return false
		}
	}
	return true
}

// callOutput reads a function_call_output's output: a string, or an
// array of input_text parts (joined).
func callOutput(f string, raw json.RawMessage) (string, error) {
	switch engine.JSONKind(raw) {
	case "string":
		var s string
		json.Unmarshal(raw, &s)
		return s, nil
	case "array":
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(raw, &parts) != nil {
			return "", engine.FieldError(f, "must be a string or an array of input_text parts")
		}
		var b strings.Builder
		for j, p := range parts {
			if p.Type != "input_text" && p.Type != "output_text" {
				return "", engine.FieldError(elemName(f, j)+".type", "must be input_text (tool outputs are text), got %q", p.Type)
			}
			b.WriteString(p.Text)
		}
		return b.String(), nil
	}
	return "", engine.FieldError(f, "is required: the tool's result as a string, got %s", engine.JSONKind(raw))
}

// withItemID is the item as stored for input_items: as sent, with an id
// and a type when it had none.
func withItemID(ctx context.Context, raw json.RawMessage, it *inputItem) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return raw
	}
	if _, typed := obj["type"]; typed && engine.JSONKind(it.ID) == "string" {
		return raw
	}
	if engine.JSONKind(it.ID) != "string" {
		prefix := map[string]string{"function_call": "fc_", "function_call_output": "fco_", "custom_tool_call": "ctc_", "custom_tool_call_output": "ctco_", "reasoning": "rs_"}[it.Type]
		if prefix == "" {
			prefix = "msg_"
		}
		obj["id"], _ = json.Marshal(engine.NewPrefixedID(ctx, prefix, 24))
	}
	obj["type"], _ = json.Marshal(it.Type)
	b, _ := json.Marshal(obj)
	return b
}
