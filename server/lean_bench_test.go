package server

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// leanBenchAnswer answers as Hearth's JSON handlers do: a few headers,
// a JSON body read whole, a small JSON answer.
func leanBenchAnswer(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	_ = r.Context().Done()
	h := w.Header()
	h["X-Content-Type-Options"] = nosniff
	h["Content-Security-Policy"], h["Referrer-Policy"] = apiCSP, noReferrer
	h.Set("Content-Type", "application/json")
	h.Set("Lb-Request-Id", "req_0123456789")
	w.WriteHeader(200)
	_, _ = w.Write([]byte(`{"completion":"hello there","usage":{"prompt_tokens":3,"completion_tokens":2}}`))
}

// benchServe serves leanBenchAnswer through net/http, with or without
// the lean path, and returns its address and a stop function.
func benchServe(b *testing.B, lean bool) (string, func()) {
	return benchServeGuard(b, lean, false)
}

// benchServeGuard is benchServe with net/http's side guarded (RFC 9112
// §6.1, framing.go) when guard is set, as Hearth serves it.
func benchServeGuard(b *testing.B, lean, guard bool) (string, func()) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(leanBenchAnswer), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	var l net.Listener = ln
	var ll *LeanListener
	if lean {
		ll = NewLeanListener(ln, srv.Handler, LeanConfig{ReadHeaderTimeout: srv.ReadHeaderTimeout, IdleTimeout: srv.IdleTimeout})
		l = ll
	}
	if guard {
		l = guardFraming(l, srv)
	}
	go srv.Serve(l)
	return ln.Addr().String(), func() {
		srv.Close()
		if ll != nil {
			ll.CloseConnections()
			_ = ll.Shutdown(b.Context())
		}
	}
}

// BenchmarkServerSide sends one simple POST at a time per connection
// from a raw client; the client's cost is the same on both sides, so
// the difference is the server's.
func BenchmarkServerSide(b *testing.B) {
	for _, arm := range []struct {
		name        string
		lean, guard bool
	}{{"net-http", false, false}, {"net-http-guarded", false, true}, {"lean", true, true}} {
		b.Run(arm.name, func(b *testing.B) {
			addr, stop := benchServeGuard(b, arm.lean, arm.guard)
			defer stop()
			body := `{"messages":[{"role":"user","content":"hi"}],"stream":false}`
			req := []byte("POST /v1/pipes/run HTTP/1.1\r\nHost: " + addr + "\r\nUser-Agent: bench\r\nAuthorization: Bearer xyz\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
			b.ReportAllocs()
			b.SetParallelism(8)
			cpu0 := processCPU()
			defer func() { b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N)/1e3, "cpu-µs/op") }()
			b.RunParallel(func(pb *testing.PB) {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					b.Error(err)
					return
				}
				defer c.Close()
				br := bufio.NewReader(c)
				for pb.Next() {
					if _, err := c.Write(req); err != nil {
						b.Error(err)
						return
					}
					if err := skipAnswer(br); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// processCPU is the process's user and system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
