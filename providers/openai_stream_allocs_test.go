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

// TestOpenAIStreamAllocationsPerEvent counts what each upstream event of
// an OpenAI stream costs the adapter (a count, not a timing): the
// difference between a stream of 210 content events and one of 10, per
// event. The chunk decoder, the reused queue and the stream's blocks of
// events and text make it about half of one (an eighth of a block of
// events, a share of a text block); encoding/json alone was about 13, one
// allocation each for the chunk and its text 2.
func TestOpenAIStreamAllocationsPerEvent(t *testing.T) {
	body := func(n int) []byte {
		var b bytes.Buffer
		for i := range n {
			fmt.Fprintf(&b, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1741570283,\"model\":\"gpt-4o\",\"system_fingerprint\":\"fp_1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok%d \\n\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n", i)
		}
		b.WriteString("data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1741570283,\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
		return b.Bytes()
	}
	bodies := map[string][]byte{"/v1/10/chat/completions": body(10), "/v1/210/chat/completions": body(210)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(bodies[r.URL.Path])
	}))
	defer srv.Close()
	count := func(n int) float64 {
		m := openAIAt(t, fmt.Sprintf("%s/v1/%d", srv.URL, n))
		req := &engine.ChatRequest{Model: "gpt-4o", Messages: []engine.Message{userMsg("hi")}, APIKey: "k"}
		return testing.AllocsPerRun(20, func() {
			s, err := m.ChatStream(context.Background(), req)
			if err != nil {
				t.Fatal(err)
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
				t.Fatalf("%d events, want %d", events, n+1)
			}
		})
	}
	small, large := count(10), count(210)
	perEvent := (large - small) / 200
	t.Logf("%.2f allocations an event (%.0f for 10 events, %.0f for 210)", perEvent, small, large)
	if perEvent > 0.8+raceAllocsPerEvent {
		t.Fatalf("%.2f allocations an upstream event, want at most %.1f", perEvent, 0.8+raceAllocsPerEvent)
	}
	// The whole call of 10 events: the request, the connection's reads and
	// the stream, whose reader, queue, state and first data buffer are one
	// allocation (71 when they were five).
	if !raceEnabled && small > 66 {
		t.Fatalf("a stream of 10 events allocates %.0f times, want at most 66", small)
	}
}
