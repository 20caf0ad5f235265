package providers

import "encoding/json"

// reservedExtra are body keys custom model parameters may not override:
// they would break the call itself (which model, which messages, whether
// the answer streams).
var reservedExtra = map[string]bool{"model": true, "messages": true, "stream": true, "contents": true}

// marshalWithExtra encodes v and merges extra (the customModelParams) into
// the top-level object unchanged, extra winning over Hearth's own fields.
func marshalWithExtra(v any, extra map[string]json.RawMessage) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, val := range extra {
		if !reservedExtra[k] {
			m[k] = val
		}
	}
	return json.Marshal(m)
}
