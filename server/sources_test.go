package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

type sourceOut struct {
	Memory   string  `json:"memory"`
	Document string  `json:"document"`
	Chunk    string  `json:"chunk"`
	Score    float64 `json:"score"`
	Text     string  `json:"text"`
}

// A run with include_sources answers the memory chunks it used: a sources
// array in the JSON answer, and one extra event before [DONE] in a stream.
// Without the flag neither appears (docs/pipes-and-threads.md#sources).
func TestRunIncludeSources(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": "hearth:bm25", "chunk_size": 1000, "chunk_overlap": 0, "top_k": 1})
	upload(t, ts, key, "kb", "zebra.md", "text/markdown", []byte("# Zebras\n\nZebras have black and white stripes."), nil)
	upload(t, ts, key, "kb", "moss.txt", "text/plain", []byte("Moss grows in damp forests."), nil)
	waitCompleted(t, ts, key, "kb", "zebra.md")
	waitCompleted(t, ts, key, "kb", "moss.txt")
	mustStatus(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "rag", "model": "hearth:echo",
		"memory": []map[string]string{{"name": "kb"}}}), 200)
	ask := []map[string]string{{"role": "user", "content": "Which stripes do zebras have?"}}

	r := ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "rag", "messages": ask, "include_sources": true})
	mustStatus(t, r, 200)
	var got struct {
		Completion string       `json:"completion"`
		Sources    *[]sourceOut `json:"sources"`
	}
	r.JSON(t, &got)
	if got.Sources == nil || len(*got.Sources) != 1 {
		t.Fatalf("sources: %s", r.Body)
	}
	s := (*got.Sources)[0]
	if s.Memory != "kb" || s.Document != "zebra.md" || s.Chunk == "" || s.Score <= 0 || s.Score > 1 ||
		!strings.Contains(s.Text, "black and white stripes") {
		t.Fatalf("source %+v", s)
	}

	r = ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "rag", "messages": ask})
	mustStatus(t, r, 200)
	if strings.Contains(string(r.Body), `"sources"`) {
		t.Fatalf("sources without include_sources: %s", r.Body)
	}
	// Asked for but nothing retrieved: an empty array, not a missing field.
	r = ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "rag", "include_sources": true,
		"messages": []map[string]string{{"role": "user", "content": "quasar"}}})
	mustStatus(t, r, 200)
	if !strings.Contains(string(r.Body), `"sources":[]`) {
		t.Fatalf("empty sources: %s", r.Body)
	}

	r = ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "rag", "messages": ask, "stream": true, "include_sources": true})
	mustStatus(t, r, 200)
	events, err := parseSSE(r.Body)
	if err != nil || len(events) < 3 || events[len(events)-1].Data != "[DONE]" {
		t.Fatalf("stream %v: %s", err, r.Body)
	}
	var ev, first struct {
		ID      string      `json:"id"`
		Choices []any       `json:"choices"`
		Sources []sourceOut `json:"sources"`
	}
	_ = json.Unmarshal([]byte(events[0].Data), &first)
	// The same id as the run's chunks: the SDK's getRunner starts a new
	// completion on a new id.
	if err := json.Unmarshal([]byte(events[len(events)-2].Data), &ev); err != nil || ev.Choices == nil || ev.ID == "" ||
		ev.ID != first.ID || len(ev.Choices) != 0 || len(ev.Sources) != 1 || ev.Sources[0] != s {
		t.Fatalf("sources event %v: %s", err, events[len(events)-2].Data)
	}
	r = ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "rag", "messages": ask, "stream": true})
	if strings.Contains(string(r.Body), "sources") {
		t.Fatalf("stream without include_sources: %s", r.Body)
	}
}
