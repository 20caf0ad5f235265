package providers_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// BenchmarkOpenAIStreamAllocs reads whole OpenAI streams of 10 and 210
// content events from a fake upstream on loopback. What an upstream event
// costs the adapter is the difference between the two, per event: about
// half of one on Go 1.26 (the chunk decoder, the reused queue and the
// stream's blocks of events and text: an eighth of a block of events, a
// share of a text block); encoding/json alone was about 13, one allocation
// each for the chunk and its text 2. The whole call of 10 events (the
// request, the connection's reads and the stream, whose reader, queue,
// state and first data buffer are one allocation) was 66 (71 when they
// were five).
func BenchmarkOpenAIStreamAllocs(b *testing.B) {
	body := func(n int) []byte {
		var buf bytes.Buffer
		for i := range n {
			fmt.Fprintf(&buf, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1741570283,\"model\":\"gpt-4o\",\"system_fingerprint\":\"fp_1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok%d \\n\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n", i)
		}
		buf.WriteString("data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1741570283,\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
		return buf.Bytes()
	}
	bodies := map[string][]byte{"/v1/10/chat/completions": body(10), "/v1/210/chat/completions": body(210)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(bodies[r.URL.Path])
	}))
	defer srv.Close()
	for _, n := range []int{10, 210} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			m := openAIAt(b, fmt.Sprintf("%s/v1/%d", srv.URL, n))
			req := &engine.ChatRequest{Model: "gpt-4o", Messages: []engine.Message{userMsg("hi")}, APIKey: "k"}
			b.ReportAllocs()
			for b.Loop() {
				s, err := m.ChatStream(context.Background(), req)
				if err != nil {
					b.Fatal(err)
				}
				events := 0
				for {
					if _, err := s.Recv(); err != nil {
						break
					}
					events++
				}
				s.Close()
				if events != n+1 {
					b.Fatalf("%d events, want %d", events, n+1)
				}
			}
		})
	}
}
