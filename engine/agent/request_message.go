package agent

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/hearth-dev/hearth/engine"
)

// elemField names a field of the i-th element of list ("messages[2].role"),
// built only when an error needs it.
func elemField(list string, i int, suffix string) string {
	return list + "[" + strconv.Itoa(i) + "]" + suffix
}

// inputMessage validates the i-th InputMessage of list: role, content
// (string, parts or null), name, tool_call_id (required for role tool)
// and, on assistant messages sent back in a tool conversation, tool_calls.
func inputMessage(list string, i int, raw json.RawMessage) (engine.Message, error) {
	var m engine.Message
	if engine.JSONKind(raw) != "object" {
		return m, engine.FieldError(elemField(list, i, ""), "must be a message object, got %s", engine.JSONKind(raw))
	}
	var r rawInputMessage
	if err := json.Unmarshal(raw, &r); err != nil {
		return m, engine.FieldError(elemField(list, i, ""), "is not a valid message object")
	}
	var err error
	if m.Role, err = roleString(list, i, r.Role); err != nil {
		return m, err
	}
	switch m.Role {
	case "user", "assistant", "system", "tool":
	case "":
		return m, engine.FieldError(elemField(list, i, ".role"), "is required (user, assistant, system or tool)")
	default:
		return m, engine.FieldError(elemField(list, i, ".role"), "must be one of user, assistant, system, tool, got %q", m.Role)
	}
	if m.Name, err = optString(list, i, ".name", r.Name); err != nil {
		return m, err
	}
	if m.ToolCallID, err = optString(list, i, ".tool_call_id", r.ToolCallID); err != nil {
		return m, err
	}
	if engine.JSONKind(r.Content) == "string" {
		s, ok := jsonString(r.Content)
		if !ok {
			return m, engine.FieldError(elemField(list, i, ".content"), "is not a valid JSON string")
		}
		m.Content = engine.TextContent(s)
	} else if m.Content, err = messageContent(elemField(list, i, ".content"), r.Content); err != nil {
		return m, err
	}
	if !isNull(r.ToolCalls) {
		if m.Role != "assistant" {
			return m, engine.FieldError(elemField(list, i, ".tool_calls"), "is only allowed on assistant messages")
		}
		if m.ToolCalls, err = inputToolCalls(elemField(list, i, ".tool_calls"), r.ToolCalls); err != nil {
			return m, err
		}
	}
	switch m.Role {
	case "tool":
		if m.ToolCallID == "" {
			return m, engine.FieldError(elemField(list, i, ".tool_call_id"), "is required on tool messages")
		}
		if m.Content.IsNull() {
			return m, engine.FieldError(elemField(list, i, ".content"), "is required on tool messages")
		}
	case "assistant":
		if m.Content.IsNull() && len(m.ToolCalls) == 0 {
			return m, engine.FieldError(elemField(list, i, ".content"), "is required unless the assistant message has tool_calls")
		}
	default:
		if m.Content.IsNull() {
			return m, engine.FieldError(elemField(list, i, ".content"), "is required on %s messages", m.Role)
		}
	}
	return m, nil
}

// optString reads an optional string field of the i-th element of list
// ("" when absent or null).
func optString(list string, i int, suffix string, raw json.RawMessage) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	s, ok := jsonString(raw)
	if !ok {
		return "", engine.FieldError(elemField(list, i, suffix), "must be a string, got %s", engine.JSONKind(raw))
	}
	return s, nil
}

// roles are the message roles as JSON strings, read without allocating.
var roles = [...]string{"user", "assistant", "system", "tool"}

// roleString is optString for the role: a valid role written plainly is
// the constant.
func roleString(list string, i int, raw json.RawMessage) (string, error) {
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' {
		for _, r := range roles {
			if string(raw[1:n-1]) == r {
				return r, nil
			}
		}
	}
	return optString(list, i, ".role", raw)
}

// mayBeDeveloper reports whether a message could have the role
// "developer": the word is in it, or an escape that could spell it.
// Messages that cannot skip isDeveloper's decoding.
func mayBeDeveloper(m json.RawMessage) bool {
	return bytes.Contains(m, []byte("developer")) || bytes.Contains(m, []byte(`\u`))
}

// isDeveloper reports whether a message's role is "developer" (OpenAI's
// newer name for system).
func isDeveloper(m json.RawMessage) bool {
	var role struct {
		Role string `json:"role"`
	}
	return json.Unmarshal(m, &role) == nil && role.Role == "developer"
}
