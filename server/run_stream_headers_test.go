package server_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"unsafe"
)

// TestStreamRunHeadersLiveInTheDecodedBody: a streamed pipe run's (and a
// beta run's) lb-thread-id and lb-model values are the two strings of
// the decoded body's header buffer, adjacent in memory, not slices of
// their own.
func TestStreamRunHeadersLiveInTheDecodedBody(t *testing.T) {
	ts := startRunServer(t)
	msgs := []any{user("Say something about foxes.")}
	for path, end := range map[string]string{"/v1/pipes/run": "data: [DONE]", "/beta/pipes/run": `"finish_reason":"stop"`} {
		body, _ := json.Marshal(map[string]any{"messages": msgs, "stream": true})
		rec := &allocWriter{}
		ts.run(rec, path, ts.pipeKey, body)
		if rec.Code != 200 || !bytes.Contains(rec.Body.Bytes(), []byte(end)) {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Body.String())
		}
		h := rec.Header()
		thread, model := h["lb-thread-id"], h["lb-model"]
		if len(thread) != 1 || len(model) != 1 || thread[0] == "" || model[0] != "openai:gpt-4o-mini" {
			t.Fatalf("%s: headers %v", path, h)
		}
		if unsafe.Pointer(&model[0]) != unsafe.Add(unsafe.Pointer(&thread[0]), unsafe.Sizeof("")) || cap(thread) != 1 || cap(model) != 1 {
			t.Fatalf("%s: lb-thread-id and lb-model values are not the body's header buffer", path)
		}
	}
}
