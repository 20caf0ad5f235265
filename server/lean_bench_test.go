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

// BenchmarkLeanRequestAllocs: one simple request (a keep-alive POST with a
// small body answered with a small JSON body, by a handler that allocates
// nothing of its own beyond its header entries) through the lean path and
// through net/http's server, on loopback. The raw client allocates
// nothing, so the figure is the server's: 11 for the lean path on Go 1.26,
// 25 for net/http.
func BenchmarkLeanRequestAllocs(b *testing.B) {
	answer := []byte(`{"completion":"hello","usage":{"total_tokens":5}}`)
	ctype := []string{"application/json"}
	buf := make([]byte, 64)
	h := handlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for {
			if _, err := r.Body.Read(buf); err != nil {
				break
			}
		}
		hdr := w.Header()
		hdr["Content-Type"], hdr["X-Content-Type-Options"] = ctype, nosniff
		w.WriteHeader(200)
		_, _ = w.Write(answer)
	})
	_, leanAddr := startLean(b, h, LeanConfig{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(func() { _ = srv.Close() })
	req := []byte(post("/v1/pipes/run", `{"messages":[{"role":"user","content":"hi"}]}`, "Authorization: Bearer k", "Content-Type: application/json"))
	b.Run("lean", func(b *testing.B) { benchRequests(b, leanAddr, req) })
	b.Run("net/http", func(b *testing.B) { benchRequests(b, ln.Addr().String(), req) })
}

// BenchmarkLeanNineHeadersAllocs: one simple request whose answer sets nine
// header entries, as Hearth's run answers do, through the lean path: 13
// on Go 1.26. A connection makes its next answer's header map as large as
// its last answer's handler needed (headerHint); without it the map grows
// from a small map into a table on its ninth entry, one allocation more.
func BenchmarkLeanNineHeadersAllocs(b *testing.B) {
	val := []string{"v"}
	names := []string{"Content-Security-Policy", "Content-Type", "Referrer-Policy", "Vary", "X-Content-Type-Options",
		"Lb-Model", "Lb-Request-Id", "Lb-Thread-Id", "Lb-Trace-Id"}
	answer := []byte(`{"completion":"hello"}`)
	h := handlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		hdr := w.Header()
		for _, k := range names {
			hdr[k] = val
		}
		w.WriteHeader(200)
		_, _ = w.Write(answer)
	})
	_, addr := startLean(b, h, LeanConfig{})
	benchRequests(b, addr, []byte(post("/v1/pipes/run", `{"messages":[{"role":"user","content":"hi"}]}`, "Content-Type: application/json")))
}

// benchRequests sends req on one kept-alive connection to addr, an answer
// read each time before the next request.
func benchRequests(b *testing.B, addr string, req []byte) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	one := func() {
		if _, err := c.Write(req); err != nil {
			b.Fatal(err)
		}
		if err := skipAnswer(br); err != nil {
			b.Fatal(err)
		}
	}
	one()
	b.ReportAllocs()
	for b.Loop() {
		one()
	}
}

// skipAnswer reads one answer with a Content-Length without allocating.
func skipAnswer(br *bufio.Reader) error {
	n := 0
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(line) == 2 {
			break
		}
		const cl = "Content-Length: "
		if len(line) > len(cl) && string(line[:len(cl)]) == cl {
			for _, c := range line[len(cl) : len(line)-2] {
				n = n*10 + int(c-'0')
			}
		}
	}
	_, err := br.Discard(n)
	return err
}
