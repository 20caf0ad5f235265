package server

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// Tool calls of some providers carry data that must come back with them
// on the next turn (a Gemini thought signature in extra_content). A
// Messages client echoes only a tool_use block's id, name and input, so
// that data travels inside the id: "hxtc_" and the base64url of
// {"i": id, "x": extra_content}. The id stays within the characters
// Anthropic allows ([A-Za-z0-9_-]), so a conversation can move to a
// Claude model afterwards. Ids without such data go out unchanged.

// toolIDPrefix marks a tool_use id that carries extra_content.
const toolIDPrefix = "hxtc_"

type packedToolID struct {
	ID    string          `json:"i"`
	Extra json.RawMessage `json:"x,omitempty"`
}

// encodeToolID is the tool_use id of a call with id and extra.
func encodeToolID(id string, extra json.RawMessage) string {
	if len(extra) == 0 && validToolID(id) {
		return id
	}
	b, _ := json.Marshal(packedToolID{ID: id, Extra: extra})
	return toolIDPrefix + base64.RawURLEncoding.EncodeToString(b)
}

// decodeToolID reads back what encodeToolID packed; other ids are as they are.
func decodeToolID(s string) (string, json.RawMessage) {
	rest, ok := strings.CutPrefix(s, toolIDPrefix)
	if !ok {
		return s, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil {
		return s, nil
	}
	var p packedToolID
	if json.Unmarshal(b, &p) != nil {
		return s, nil
	}
	return p.ID, p.Extra
}

// toolCallID is the call id a tool_result's tool_use_id refers to.
func toolCallID(s string) string {
	id, _ := decodeToolID(s)
	return id
}

// validToolID reports whether id is non-empty and uses only [A-Za-z0-9_-].
func validToolID(id string) bool {
	if id == "" || strings.HasPrefix(id, toolIDPrefix) {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
