package main

import (
	"bytes"
	"io"
	"net/http"
	"runtime/pprof"
	"strings"
	"testing"
)

// TestGatewayProfileLabels: with keep-alive connections open, the fake
// upstream's connection goroutines carry role=upstream, Hearth's
// role=hearth and the clients' transport goroutines role=bench, so `go
// tool pprof -tagfocus role=hearth` is Hearth alone.
func TestGatewayProfileLabels(t *testing.T) {
	settleAfter(t)
	f, err := startUpstream("")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tb := &benchTB{}
	defer tb.close()
	ts, err := startHearth(tb, gatewayOptions{}, f.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	asBench(func() {
		for _, url := range []string{f.URL + "/v1/models", ts.URL + "/health"} {
			resp, err := client.Get(url)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body) // read to the end: the connection stays open
			resp.Body.Close()
		}
	})
	var b bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
		t.Fatal(err)
	}
	// debug=1: one block a distinct stack, "# labels: {...}" before its frames.
	labels := map[string]map[string]bool{}
	for _, block := range strings.Split(b.String(), "\n\n") {
		label := ""
		for _, line := range strings.Split(block, "\n") {
			if l, ok := strings.CutPrefix(line, "# labels: "); ok {
				label = l
			}
		}
		// Hearth's simple requests are served on its lean path.
		for _, fn := range []string{"net/http.(*conn).serve", "net/http.(*persistConn).readLoop", "server.(*leanConn).serve"} {
			if strings.Contains(block, fn+"+") {
				key := strings.Replace(fn, "server.(*leanConn).serve", "net/http.(*conn).serve", 1)
				if labels[key] == nil {
					labels[key] = map[string]bool{}
				}
				labels[key][label] = true
			}
		}
	}
	serve, read := labels["net/http.(*conn).serve"], labels["net/http.(*persistConn).readLoop"]
	if len(serve) != 2 || !serve[`{"role":"upstream"}`] || !serve[`{"role":"hearth"}`] {
		t.Errorf("connection goroutines' labels %v: want the fake's role=upstream and Hearth's role=hearth", serve)
	}
	if len(read) != 1 || !read[`{"role":"bench"}`] {
		t.Errorf("client transport goroutines' labels %v: want role=bench only", read)
	}
}
