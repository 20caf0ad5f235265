package server

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// The content blocks of a Messages request, turned into canonical
// messages and parts.

// contentBlocks reads a content: a string (one text block) or blocks.
func contentBlocks(at string, raw json.RawMessage) ([]msgBlock, error) {
	switch engine.JSONKind(raw) {
	case "string":
		var s string
		json.Unmarshal(raw, &s)
		return []msgBlock{{Type: "text", Text: s}}, nil
	case "array":
		var blocks []msgBlock
		if err := json.Unmarshal(raw, &blocks); err != nil {
			return nil, engine.FieldError(at, "must be an array of content blocks")
		}
		return blocks, nil
	}
	return nil, engine.FieldError(at, "must be a string or an array of content blocks, got %s", engine.JSONKind(raw))
}

// userMessages turns a user turn into tool messages (its tool_result
// blocks) and one user message with the rest.
func userMessages(at string, blocks []msgBlock) ([]engine.Message, error) {
	var out []engine.Message
	var parts []engine.ContentPart
	for j, b := range blocks {
		bat := fmt.Sprintf("%s.content[%d]", at, j)
		cc, err := cacheControl(bat, b.CacheControl)
		if err != nil {
			return nil, err
		}
		if b.Type == "tool_result" {
			if b.ToolUseID == "" {
				return nil, engine.FieldError(bat+".tool_use_id", "is required")
			}
			text, extra, err := toolResultContent(bat+".content", b.Content)
			if err != nil {
				return nil, err
			}
			if b.IsError {
				text = "Error: " + text
			}
			out = append(out, engine.Message{Role: "tool", ToolCallID: toolCallID(b.ToolUseID), Content: engine.TextContent(text), CacheControl: cc})
			parts = append(parts, extra...)
			continue
		}
		p, err := userParts(bat, b)
		if err != nil {
			return nil, err
		}
		if len(p) > 0 {
			p[len(p)-1].CacheControl = cc
		}
		parts = append(parts, p...)
	}
	if len(parts) > 0 || len(out) == 0 {
		out = append(out, engine.Message{Role: "user", Content: partsContent(parts)})
	}
	return out, nil
}

// partsContent is a string content for text alone without cache_control
// breakpoints, else parts.
func partsContent(parts []engine.ContentPart) engine.Content {
	var b strings.Builder
	for i, p := range parts {
		if p.Type != "text" || len(p.CacheControl) > 0 {
			return engine.Content{Parts: parts, Set: true}
		}
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(p.Text)
	}
	return engine.TextContent(b.String())
}

// userParts converts a text, image or document block.
func userParts(at string, b msgBlock) ([]engine.ContentPart, error) {
	switch b.Type {
	case "text":
		return []engine.ContentPart{{Type: "text", Text: b.Text}}, nil
	case "image":
		u, err := imageURL(at, b.Source)
		if err != nil {
			return nil, err
		}
		return []engine.ContentPart{{Type: "image_url", ImageURL: &engine.ImageURL{URL: u}}}, nil
	case "document":
		return documentParts(at, b)
	case "tool_use", "thinking", "redacted_thinking":
		return nil, engine.FieldError(at+".type", "%s blocks belong in assistant messages", b.Type)
	}
	return nil, engine.FieldError(at+".type", "must be text, image, document or tool_result in a user message, got %q", b.Type)
}

// imageURL is the URL (a data: URL for base64) of an image source.
func imageURL(at string, src *msgSource) (string, error) {
	if src == nil {
		return "", engine.FieldError(at+".source", "is required")
	}
	switch src.Type {
	case "base64":
		if !imageTypes[src.MediaType] {
			return "", engine.FieldError(at+".source.media_type", "must be image/jpeg, image/png, image/gif or image/webp, got %q", src.MediaType)
		}
		if src.Data == "" {
			return "", engine.FieldError(at+".source.data", "is required")
		}
		return "data:" + src.MediaType + ";base64," + src.Data, nil
	case "url":
		if !strings.HasPrefix(src.URL, "https://") && !strings.HasPrefix(src.URL, "http://") {
			return "", engine.FieldError(at+".source.url", "must be an http(s) URL")
		}
		return src.URL, nil
	}
	return "", engine.FieldError(at+".source.type", "must be base64 or url, got %q", src.Type)
}

// documentParts reads a document block: plain text and content sources
// become text (the title first), a base64 PDF a file part (an Anthropic
// document, an OpenAI file, Gemini inline data); PDFs by URL are refused.
func documentParts(at string, b msgBlock) ([]engine.ContentPart, error) {
	if b.Source == nil {
		return nil, engine.FieldError(at+".source", "is required")
	}
	var text string
	switch b.Source.Type {
	case "base64":
		if b.Source.MediaType != "application/pdf" {
			return nil, engine.FieldError(at+".source.media_type", "must be application/pdf, got %q", b.Source.MediaType)
		}
		if b.Source.Data == "" {
			return nil, engine.FieldError(at+".source.data", "is required")
		}
		name := b.Title
		if name == "" {
			name = "document.pdf"
		}
		return []engine.ContentPart{{Type: "file", File: &engine.FilePart{FileData: "data:application/pdf;base64," + b.Source.Data, Filename: name}}}, nil
	case "text":
		text = b.Source.Data
	case "content":
		blocks, err := contentBlocks(at+".source.content", b.Source.Content)
		if err != nil {
			return nil, err
		}
		var parts []string
		for _, cb := range blocks {
			if cb.Type == "text" {
				parts = append(parts, cb.Text)
			}
		}
		text = strings.Join(parts, "\n\n")
	default:
		return nil, engine.FieldError(at+".source.type", "must be text, content or base64 (a PDF), got %q: send a PDF's bytes as base64", b.Source.Type)
	}
	if b.Title != "" {
		text = b.Title + "\n\n" + text
	}
	return []engine.ContentPart{{Type: "text", Text: text}}, nil
}

// toolResultContent reads a tool_result's content: a string or text,
// image and document blocks. The text is the tool message; images and
// PDFs come back as parts for the user message that follows the tool
// messages.
func toolResultContent(at string, raw json.RawMessage) (string, []engine.ContentPart, error) {
	if k := engine.JSONKind(raw); k == "" || k == "null" {
		return "", nil, nil
	}
	blocks, err := contentBlocks(at, raw)
	if err != nil {
		return "", nil, err
	}
	var texts []string
	var images []engine.ContentPart
	for j, b := range blocks {
		bat := fmt.Sprintf("%s[%d]", at, j)
		switch b.Type {
		case "text":
			texts = append(texts, b.Text)
		case "image":
			u, err := imageURL(bat, b.Source)
			if err != nil {
				return "", nil, err
			}
			images = append(images, engine.ContentPart{Type: "image_url", ImageURL: &engine.ImageURL{URL: u}})
		case "document":
			p, err := documentParts(bat, b)
			if err != nil {
				return "", nil, err
			}
			if p[0].Type == "text" {
				texts = append(texts, p[0].Text)
			} else {
				images = append(images, p...)
			}
		default:
			return "", nil, engine.FieldError(bat+".type", "must be text, image or document, got %q", b.Type)
		}
	}
	return strings.Join(texts, "\n\n"), images, nil
}

// assistantMessage turns an assistant turn into one message: its text,
// its tool calls, and its thinking blocks in the first call's
// extra_content with the order of the turn's blocks (thinking without
// tool calls is not needed again). The model that produced them is set
// once the request's model is known (thinkingFrom).
func assistantMessage(at string, blocks []msgBlock) (engine.Message, error) {
	m := engine.Message{Role: "assistant"}
	var text []string
	var thinking []json.RawMessage
	// layout lists the blocks in order, as the anthropic adapter sends
	// them back: "thinking", "text" or "tool_use:<id>".
	var layout []string
	for j, b := range blocks {
		bat := fmt.Sprintf("%s.content[%d]", at, j)
		cc, err := cacheControl(bat, b.CacheControl)
		if err != nil {
			return m, err
		}
		if cc != nil {
			m.CacheControl = cc
		}
		switch b.Type {
		case "text":
			text = append(text, b.Text)
			if n := len(layout); b.Text != "" && (n == 0 || layout[n-1] != "text") {
				layout = append(layout, "text")
			}
		case "tool_use":
			if b.ID == "" || b.Name == "" {
				return m, engine.FieldError(bat, "a tool_use block needs an id and a name")
			}
			input := b.Input
			if engine.JSONKind(input) != "object" {
				input = json.RawMessage(`{}`)
			}
			id, extra := decodeToolID(b.ID)
			layout = append(layout, "tool_use:"+id)
			m.ToolCalls = append(m.ToolCalls, engine.ToolCall{ID: id, Type: "function", ExtraContent: extra,
				Function: engine.FunctionCall{Name: b.Name, Arguments: string(input)}})
		case "thinking":
			raw, _ := json.Marshal(map[string]string{"type": "thinking", "thinking": b.Thinking, "signature": b.Signature})
			thinking = append(thinking, raw)
			layout = append(layout, "thinking")
		case "redacted_thinking":
			raw, _ := json.Marshal(map[string]string{"type": "redacted_thinking", "data": b.Data})
			thinking = append(thinking, raw)
			layout = append(layout, "thinking")
		default:
			return m, engine.FieldError(bat+".type", "must be text, tool_use, thinking or redacted_thinking in an assistant message, got %q", b.Type)
		}
	}
	if len(text) > 0 || len(m.ToolCalls) == 0 {
		m.Content = engine.TextContent(strings.Join(text, ""))
	}
	if len(m.ToolCalls) > 0 && len(thinking) > 0 {
		m.ToolCalls[0].ExtraContent = withExtra(m.ToolCalls[0].ExtraContent, "anthropic", map[string]any{"thinking": thinking, "layout": layout})
	}
	return m, nil
}

// withExtra returns extra with provider's entry set to v.
func withExtra(extra json.RawMessage, provider string, v any) json.RawMessage {
	m := map[string]json.RawMessage{}
	if len(extra) > 0 {
		json.Unmarshal(extra, &m)
	}
	b, _ := json.Marshal(v)
	m[provider] = b
	out, _ := json.Marshal(m)
	return out
}

// thinkingFrom marks the thinking blocks a Messages client sent back as
// produced by model, the Anthropic model the request goes to: the client
// holds the conversation, so its blocks go back as it sent them, as they
// would if it called Anthropic itself.
func thinkingFrom(chat *engine.ChatRequest, model string) {
	for i := range chat.Messages {
		m := &chat.Messages[i]
		if m.Role != "assistant" || len(m.ToolCalls) == 0 || len(m.ToolCalls[0].ExtraContent) == 0 {
			continue
		}
		var x map[string]json.RawMessage
		if json.Unmarshal(m.ToolCalls[0].ExtraContent, &x) != nil || len(x["anthropic"]) == 0 {
			continue
		}
		var ant map[string]json.RawMessage
		if json.Unmarshal(x["anthropic"], &ant) != nil || len(ant["model"]) > 0 {
			continue
		}
		ant["model"], _ = json.Marshal(model)
		m.ToolCalls[0].ExtraContent = withExtra(m.ToolCalls[0].ExtraContent, "anthropic", ant)
	}
}
