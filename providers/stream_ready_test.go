package providers_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// TestStreamReady: an OpenAI stream is ready exactly while the events the
// upstream sent so far hold a chunk Recv has not returned, and Ready never
// waits for the upstream (the upstream sends its second part only once
// the test has seen Ready false). Ended is false until the terminal event
// and true once Recv has nothing but io.EOF left.
func TestStreamReady(t *testing.T) {
	ev := func(delta, finish string) string {
		return fmt.Sprintf(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`+"\n\n", delta, finish)
	}
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, ev(`{"role":"assistant","content":""}`, "null")+": keep-alive\n\n"+ev(`{"content":"a"}`, "null"))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, ev(`{"content":"b"}`, "null")+ev(`{}`, `"stop"`)+"data: [DONE]\n\n")
	}))
	defer srv.Close()
	s, err := openAIAt(t, srv.URL+"/v1").ChatStream(context.Background(), &engine.ChatRequest{Model: "gpt-4o", Messages: []engine.Message{userMsg("hi")}, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	recv := func(want string) {
		t.Helper()
		c, err := s.Recv()
		if err != nil {
			t.Fatalf("recv %q: %v", want, err)
		}
		got := ""
		if len(c.Choices) > 0 && c.Choices[0].Delta.Content != nil {
			got = *c.Choices[0].Delta.Content
		}
		if got != want {
			t.Fatalf("chunk %q, want %q", got, want)
		}
	}
	recv("")
	if !engine.StreamReady(s) {
		t.Fatal("not ready with the second event buffered")
	}
	if engine.StreamEnded(s) {
		t.Fatal("ended with a chunk buffered")
	}
	recv("a")
	if engine.StreamReady(s) { // would hang here if Ready read from the connection
		t.Fatal("ready with nothing buffered")
	}
	if engine.StreamEnded(s) { // nor may Ended
		t.Fatal("ended before the terminal event")
	}
	close(release)
	recv("b")
	recv("")
	if engine.StreamReady(s) {
		t.Fatal("ready at the end of the stream")
	}
	if _, err := s.Recv(); err != io.EOF {
		t.Fatalf("after the last chunk: %v", err)
	}
	if !engine.StreamEnded(s) {
		t.Fatal("not ended after io.EOF")
	}
}
