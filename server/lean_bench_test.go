package server

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
)

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
