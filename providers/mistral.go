package providers

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// Mistral speaks the OpenAI wire with two differences handled here: tool
// call ids must be exactly nine characters of [a-zA-Z0-9], and reasoning
// answers carry content as an array of chunks instead of a string.

// mistralIDLen is the length of a tool call id Mistral accepts.
const mistralIDLen = 9

// base62 are the characters of a Mistral tool call id.
const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// mistralToolID is id as Mistral accepts it: unchanged when it already is
// nine letters and digits (Mistral's own ids), else nine characters
// derived from a SHA-256 of id. The mapping is a pure function, so the
// same id maps the same way on every turn and every node, and a tool
// result keeps pairing with its call; ids Mistral issues go back to the
// client unchanged.
func mistralToolID(id string) string {
	if validMistralID(id) {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	out := make([]byte, mistralIDLen)
	for i := range out {
		out[i] = base62[int(sum[i])%len(base62)]
	}
	return string(out)
}

func validMistralID(id string) bool {
	if len(id) != mistralIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !strings.ContainsRune(base62, rune(id[i])) {
			return false
		}
	}
	return true
}

// mistralMessages returns msgs with every tool call id and tool_call_id
// mapped by mistralToolID, copied only when one changes.
func mistralMessages(msgs []engine.Message) []engine.Message {
	var out []engine.Message
	for i, m := range msgs {
		need := m.ToolCallID != "" && !validMistralID(m.ToolCallID)
		for _, tc := range m.ToolCalls {
			need = need || !validMistralID(tc.ID)
		}
		if !need {
			continue
		}
		if out == nil {
			out = append([]engine.Message(nil), msgs...)
		}
		if m.ToolCallID != "" {
			m.ToolCallID = mistralToolID(m.ToolCallID)
		}
		if len(m.ToolCalls) > 0 {
			m.ToolCalls = append([]engine.ToolCall(nil), m.ToolCalls...)
			for j := range m.ToolCalls {
				m.ToolCalls[j].ID = mistralToolID(m.ToolCalls[j].ID)
			}
		}
		out[i] = m
	}
	if out == nil {
		return msgs
	}
	return out
}

// mistralChunk is one chunk of an array content: {"type":"text","text":…}
// or {"type":"thinking","thinking":[{"type":"text","text":…}]}.
type mistralChunk struct {
	Type     string         `json:"type"`
	Text     string         `json:"text"`
	Thinking []mistralChunk `json:"thinking"`
}

// hasArrayContent reports whether raw has a "content" key whose value is
// an array, the only case flattenContent rewrites.
func hasArrayContent(raw []byte) bool {
	key := []byte(`"content"`)
	for i := bytes.Index(raw, key); i >= 0; {
		rest := bytes.TrimLeft(raw[i+len(key):], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' {
			if rest = bytes.TrimLeft(rest[1:], " \t\r\n"); len(rest) > 0 && rest[0] == '[' {
				return true
			}
		}
		j := bytes.Index(raw[i+len(key):], key)
		if j < 0 {
			break
		}
		i += len(key) + j
	}
	return false
}

// flattenContent rewrites an answer or stream chunk whose choices carry
// content as an array of chunks into the string form: the text chunks
// joined as content, the thinking chunks joined as reasoning_content (the
// field OpenAI-wire reasoning hosts use), so the answer text holds no
// reasoning. raw is returned unchanged when there is nothing to rewrite
// or it is not an object of that shape.
func flattenContent(raw []byte) []byte {
	if !hasArrayContent(raw) {
		return raw
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return raw
	}
	var choices []map[string]json.RawMessage
	if json.Unmarshal(top["choices"], &choices) != nil {
		return raw
	}
	changed := false
	for _, ch := range choices {
		for _, key := range []string{"message", "delta"} {
			var msg map[string]json.RawMessage
			if json.Unmarshal(ch[key], &msg) != nil || msg == nil {
				continue
			}
			var chunks []mistralChunk
			if json.Unmarshal(msg["content"], &chunks) != nil {
				continue
			}
			text, thinking := joinChunks(chunks)
			msg["content"], _ = json.Marshal(text)
			if thinking != "" {
				msg["reasoning_content"], _ = json.Marshal(thinking)
			}
			ch[key], _ = json.Marshal(msg)
			changed = true
		}
	}
	if !changed {
		return raw
	}
	top["choices"], _ = json.Marshal(choices)
	out, err := json.Marshal(top)
	if err != nil {
		return raw
	}
	return out
}

// joinChunks splits content chunks into the answer text and the thinking.
func joinChunks(chunks []mistralChunk) (text, thinking string) {
	var t, r strings.Builder
	for _, c := range chunks {
		switch c.Type {
		case "text":
			t.WriteString(c.Text)
		case "thinking":
			for _, in := range c.Thinking {
				r.WriteString(in.Text)
			}
		}
	}
	return t.String(), r.String()
}
