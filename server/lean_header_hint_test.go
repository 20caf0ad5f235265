package server

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
)

// leanNineHeaderAllocs is the allocations of one simple request whose
// answer sets nine header entries, as Hearth's run answers do (measured
// with Go 1.26: 13). Without headerHint the answer's header map grows
// from a small map into a table on its ninth entry: one allocation more.
const leanNineHeaderAllocs = 13

// TestLeanHeaderMapSized: a connection makes its next answer's header
// map as large as its last answer's handler needed, so that a keep-alive
// client's answers of nine headers each do not grow it. A count, not a
// timing.
func TestLeanHeaderMapSized(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector allocates on its own")
	}
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
	_, addr := startLean(t, h, LeanConfig{})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	req := []byte(post("/v1/pipes/run", `{"messages":[{"role":"user","content":"hi"}]}`, "Content-Type: application/json"))
	one := func() {
		if _, err := c.Write(req); err != nil {
			t.Fatal(err)
		}
		if err := skipAnswer(br); err != nil {
			t.Fatal(err)
		}
	}
	one()
	got := testing.AllocsPerRun(200, one)
	t.Logf("one request with nine answer headers: %.1f allocations", got)
	if got > leanNineHeaderAllocs {
		t.Fatalf("%.1f allocations a request, want at most %d", got, leanNineHeaderAllocs)
	}
}
