package server

import (
	"bufio"
	"net"
	"net/http"
	"testing"
)

// leanAllocBudget is the allocations of one simple request and its
// answer through the lean path, handler included (measured with Go 1.26:
// 11; net/http's server takes 25 for the same exchange), plus one.
const leanAllocBudget = 12

// TestLeanRequestAllocations bounds what the lean path allocates for one
// simple request: a keep-alive POST with a small body answered with a
// small JSON body, by a handler that allocates nothing of its own beyond
// its header entries. The raw client allocates nothing, so the count is
// the server's. It is a count, not a timing. net/http's figure for the
// same exchange is logged for comparison.
func TestLeanRequestAllocations(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector allocates on its own")
	}
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
	_, leanAddr := startLean(t, h, LeanConfig{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	req := []byte(post("/v1/pipes/run", `{"messages":[{"role":"user","content":"hi"}]}`, "Authorization: Bearer k", "Content-Type: application/json"))
	count := func(addr string) float64 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		br := bufio.NewReader(c)
		one := func() {
			if _, err := c.Write(req); err != nil {
				t.Fatal(err)
			}
			if err := skipAnswer(br); err != nil {
				t.Fatal(err)
			}
		}
		one()
		return testing.AllocsPerRun(200, one)
	}
	plain, lean := count(ln.Addr().String()), count(leanAddr)
	t.Logf("one request: lean path %.1f allocations, net/http %.1f", lean, plain)
	if lean > leanAllocBudget {
		t.Fatalf("the lean path allocates %.1f times a request, budget %d", lean, leanAllocBudget)
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
