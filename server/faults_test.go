package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// faultServer is a test server with fault injection on (rules are the
// server-wide HEARTH_FAULTS rules), a fake OpenAI upstream, a pipe "p" on
// it and a pipe "sturdy" that falls back to hearth:echo.
func faultServer(t *testing.T, rules ...string) (*servertest.Server, *fake.Server) {
	t.Helper()
	up := fake.NewOpenAI()
	t.Cleanup(up.Close)
	ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), "sk-server-openai"),
		servertest.WithFaults(rules...),
		servertest.WithProviders(func(c *providers.Config) { c.Timeout = 300 * time.Millisecond }))
	mustStatus(t, ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "p", "model": "openai:gpt-4o-mini"}), 200)
	mustStatus(t, ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "sturdy", "model": "openai:gpt-4o-mini",
		"fallback_models": []string{"hearth:echo"}}), 200)
	return ts, up
}

func runWithFault(ts *servertest.Server, pipe, fault string, stream bool) *servertest.Response {
	return ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": pipe, "stream": stream,
		"messages": userMsg("are you there")}, server.HeaderFault, fault)
}

// TestFaultHeaderOff: without HEARTH_FAULTS the LB-Fault header is a 400
// naming the header and how to turn faults on.
func TestFaultHeaderOff(t *testing.T) {
	ts := servertest.Start(t)
	r := ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "x", "messages": userMsg("hi")}, server.HeaderFault, "429")
	if r.Status != 400 || !strings.Contains(string(r.Body), `"code":"BAD_REQUEST"`) ||
		!strings.Contains(string(r.Body), "LB-Fault") || !strings.Contains(string(r.Body), "HEARTH_FAULTS=on") {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
}

// TestFaultStatus: an injected 429 or 5xx is answered in place of the
// upstream, so Hearth's retry, fallback and error mapping run for real.
func TestFaultStatus(t *testing.T) {
	ts, up := faultServer(t)

	// One 429, then the retry reaches the upstream and succeeds.
	r := runWithFault(ts, "p", "429*1", false)
	mustStatus(t, r, 200)
	if up.Count() != 1 || !strings.Contains(string(r.Body), fake.DefaultText) {
		t.Fatalf("429*1: upstream calls %d, %s", up.Count(), r.Body)
	}
	// Every attempt rate limited: the caller gets Hearth's 429 shape.
	r = runWithFault(ts, "p", "429", false)
	if r.Status != 429 || !strings.Contains(string(r.Body), `"code":"RATE_LIMITED"`) || up.Count() != 1 {
		t.Fatalf("429: %d %s (upstream calls %d)", r.Status, r.Body, up.Count())
	}
	// A 500 on every attempt: the 5xx-class upstream error.
	r = runWithFault(ts, "p", "500", false)
	if r.Status != 502 || !strings.Contains(string(r.Body), "UPSTREAM_ERROR") || !strings.Contains(string(r.Body), "injected fault") || up.Count() != 1 {
		t.Fatalf("500: %d %s (upstream calls %d)", r.Status, r.Body, up.Count())
	}
	// A fault on one provider: the pipe falls back to the next model.
	r = runWithFault(ts, "sturdy", "openai:503", false)
	mustStatus(t, r, 200)
	if r.Header.Get(server.HeaderModel) != "hearth:echo" || !strings.Contains(string(r.Body), `"completion":"are you there"`) {
		t.Fatalf("fallback: %v %s", r.Header, r.Body)
	}
	// A fault on another provider leaves this one alone.
	mustStatus(t, runWithFault(ts, "p", "anthropic:500", false), 200)
	if up.Count() != 2 {
		t.Fatalf("upstream calls %d, want 2", up.Count())
	}
	// A value that is not a fault names the header and the rule.
	r = runWithFault(ts, "p", "600", false)
	if r.Status != 400 || !strings.Contains(string(r.Body), "LB-Fault") || !strings.Contains(string(r.Body), "400-599") {
		t.Fatalf("bad fault: %d %s", r.Status, r.Body)
	}
}

// TestFaultTimeouts: "timeout" hangs the call until Hearth's own timeout
// ends it; slow-first-token holds the first byte back, a timeout when it
// is longer than the provider timeout and only a delay otherwise.
func TestFaultTimeouts(t *testing.T) {
	ts, up := faultServer(t)
	for _, f := range []string{"timeout", "slow-first-token=1m"} {
		r := runWithFault(ts, "p", f, false)
		if r.Status != 504 || !strings.Contains(string(r.Body), "UPSTREAM_TIMEOUT") {
			t.Fatalf("%s: %d %s", f, r.Status, r.Body)
		}
	}
	if up.Count() != 1 {
		t.Fatalf("timeout reached the upstream: %d calls, want 1 (slow-first-token's)", up.Count())
	}
	r := runWithFault(ts, "p", "slow-first-token=1ms", true)
	if r.Status != 200 || !strings.Contains(string(r.Body), "[DONE]") {
		t.Fatalf("slow first token: %d %s", r.Status, r.Body)
	}
	// The fallback model answers when the provider times out.
	r = runWithFault(ts, "sturdy", "openai:timeout", false)
	if r.Status != 200 || r.Header.Get(server.HeaderModel) != "hearth:echo" {
		t.Fatalf("timeout fallback: %d %s", r.Status, r.Body)
	}
}

// TestFaultCutStream: the stream ends abruptly after N events; the client
// gets those events, then Hearth's error event and no [DONE].
func TestFaultCutStream(t *testing.T) {
	ts, up := faultServer(t)
	up.SetDefault(fake.Reply{Text: "one two three four five six"})
	whole := runWithFault(ts, "p", "cut-stream-after=100", true)
	cut := runWithFault(ts, "p", "cut-stream-after=2", true)
	wantWhole, err := parseSSE(whole.Body)
	if err != nil || !strings.Contains(string(whole.Body), "[DONE]") {
		t.Fatalf("uncut stream: %v %s", err, whole.Body)
	}
	events, err := parseSSE(cut.Body)
	if err != nil || cut.Status != 200 || strings.Contains(string(cut.Body), "[DONE]") {
		t.Fatalf("cut stream: %d %v %s", cut.Status, err, cut.Body)
	}
	if len(events) >= len(wantWhole) || !strings.Contains(events[len(events)-1].Data, `"error"`) {
		t.Fatalf("cut stream events %+v (whole %d)", events, len(wantWhole))
	}
}

// TestFaultServerWide: HEARTH_FAULTS rules apply without any header, to
// their provider only.
func TestFaultServerWide(t *testing.T) {
	ts, up := faultServer(t, "openai:503")
	r := ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "messages": userMsg("hi")})
	if r.Status != 502 || up.Count() != 0 {
		t.Fatalf("%d %s (upstream calls %d)", r.Status, r.Body, up.Count())
	}
	r = ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "sturdy", "messages": userMsg("hi")})
	if r.Status != 200 || r.Header.Get(server.HeaderModel) != "hearth:echo" {
		t.Fatalf("fallback: %d %s", r.Status, r.Body)
	}
}
