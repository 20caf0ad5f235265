package fake

import (
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
)

// FixedChat is an OpenAI-wire chat completions host that answers every
// request with content or, when status is not 0, with that status and an
// OpenAI error body; calls, when not nil, counts the requests.
func FixedChat(content string, status int, calls *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if calls != nil {
			calls.Add(1)
		}
		w.Header().Set("Content-Type", "application/json")
		if status != 0 {
			w.WriteHeader(status)
			io.WriteString(w, `{"error":{"message":"overloaded"}}`)
			return
		}
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":"llama","choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`, content)
	})
}
