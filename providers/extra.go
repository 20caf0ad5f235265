package providers

import "encoding/json"

// Tool calls carry provider data that must come back unchanged on the next
// turn in engine.ToolCall.ExtraContent, one JSON object keyed by provider:
// {"google":{"thought_signature":"..."}}, {"anthropic":{"thinking":[...]}},
// {"deepseek":{"reasoning_content":"..."}}. Each adapter reads only its own
// key, so a thread that moves between providers keeps the others' data
// without sending it where it is not understood.

// extraGet decodes the provider's entry of extra into v; false when absent.
func extraGet(extra json.RawMessage, provider string, v any) bool {
	if len(extra) == 0 {
		return false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(extra, &m) != nil {
		return false
	}
	raw, ok := m[provider]
	if !ok || json.Unmarshal(raw, v) != nil {
		return false
	}
	return true
}

// extraWith returns extra with the provider's entry set to v, keeping the
// other providers' entries.
func extraWith(extra json.RawMessage, provider string, v any) json.RawMessage {
	m := map[string]json.RawMessage{}
	if len(extra) > 0 {
		json.Unmarshal(extra, &m)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return extra
	}
	m[provider] = b
	out, err := json.Marshal(m)
	if err != nil {
		return extra
	}
	return out
}
