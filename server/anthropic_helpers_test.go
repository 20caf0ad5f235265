package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

// msgEvent is one named event of a Messages stream.
type msgEvent struct {
	Name string
	Data map[string]any
}

// msgResponse is a Messages answer as the tests read it.
type msgResponse struct {
	ID         string           `json:"id"`
	Type       string           `json:"type"`
	Role       string           `json:"role"`
	Model      string           `json:"model"`
	Content    []map[string]any `json:"content"`
	StopReason string           `json:"stop_reason"`
	Usage      map[string]int   `json:"usage"`
}

// msgError is the Anthropic error body.
type msgError struct {
	Type  string `json:"type"`
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// postMessages sends a Messages request with the key in x-api-key.
func postMessages(ts *servertest.Server, key string, body map[string]any, headers ...string) *servertest.Response {
	return ts.Do("POST", "/anthropic/v1/messages", "", body, append([]string{"x-api-key", key, "anthropic-version", "2023-06-01"}, headers...)...)
}

// msgReq is a Messages request body for model with a user message.
func msgReq(model, text string, kv ...any) map[string]any {
	b := map[string]any{"model": model, "max_tokens": 1024, "messages": []any{map[string]any{"role": "user", "content": text}}}
	for i := 0; i+1 < len(kv); i += 2 {
		b[kv[i].(string)] = kv[i+1]
	}
	return b
}

// parseMsgEvents reads the named events of a Messages stream, checking
// that each event line pairs with a data line of the same type.
func parseMsgEvents(t *testing.T, body []byte) []msgEvent {
	t.Helper()
	var out []msgEvent
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var name string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("event data %q: %v", line, err)
			}
			if d["type"] != name {
				t.Fatalf("event %q carries type %v", name, d["type"])
			}
			out = append(out, msgEvent{Name: name, Data: d})
		}
	}
	return out
}

// eventNames lists the events' names, content block events with their
// block's type or delta's type ("content_block_start:text").
func eventNames(evs []msgEvent) []string {
	var out []string
	for _, e := range evs {
		n := e.Name
		if cb, ok := e.Data["content_block"].(map[string]any); ok {
			n += ":" + cb["type"].(string)
		}
		if d, ok := e.Data["delta"].(map[string]any); ok && e.Name == "content_block_delta" {
			n += ":" + d["type"].(string)
		}
		out = append(out, n)
	}
	return out
}

// compact collapses runs of the same name into one, so the expected
// sequence does not depend on how text is chunked.
func compact(names []string) string {
	var out []string
	for i, n := range names {
		if i == 0 || names[i-1] != n {
			out = append(out, n)
		}
	}
	return strings.Join(out, " ")
}

// deltaText joins the text (or partial_json) of the content_block_delta
// events of block index.
func deltaText(evs []msgEvent, index int, field string) string {
	var b strings.Builder
	for _, e := range evs {
		if e.Name == "content_block_delta" && int(e.Data["index"].(float64)) == index {
			if s, ok := e.Data["delta"].(map[string]any)[field].(string); ok {
				b.WriteString(s)
			}
		}
	}
	return b.String()
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
