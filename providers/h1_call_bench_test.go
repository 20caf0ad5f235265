package providers

import (
	"context"
	"net/http"
	"testing"
)

// BenchmarkH1CallAllocs: one whole upstream call (request sent, answer
// read into a pooled buffer, call closed, both sides of the loopback)
// through the lean client and through net/http's transport on a kept-alive
// connection. The lean client allocates at least twenty-five fewer objects
// (net/http's persistConn handoff, channels, response header map and body
// wrappers): 31-35 on Go 1.26 with the call's request and body in its state
// (callState.newRequest), the answer in one h1Answer, the connection
// aborted through a callAbort instead of a context.AfterFunc on the call's
// context, the timeout timer taken from a pool (callTimer) and the call's
// end run through it (callState.end); 41 before them.
func BenchmarkH1CallAllocs(b *testing.B) {
	srv := startRaw(b, func(int64, *http.Request) ([]byte, bool) { return []byte(okAnswer), false })
	lean, std := h1Callers(b, 0)
	body := []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	for _, c := range []struct {
		name string
		c    caller
	}{{"lean", lean}, {"net/http", std}} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			set := func(h http.Header) { c.c.setBearer(h, "sk-configured") }
			call := func() {
				up, err := c.c.post(ctx, srv.url(), body, false, set)
				if err != nil {
					b.Fatal(err)
				}
				buf, err := readPooled("openai", up)
				if err != nil {
					b.Fatal(err)
				}
				releaseBody(buf)
			}
			call() // dial the kept-alive connection
			b.ReportAllocs()
			for b.Loop() {
				call()
			}
		})
	}
}
