package providers

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// TestDeploymentsFailover: three deployments share calls in turn; one is
// killed mid-run and no call fails while the others can answer; it cools
// down, and once it is back and its cool-down is over, a health probe
// lets calls return to it.
func TestDeploymentsFailover(t *testing.T) {
	clock := &depClock{t: time.Unix(1_700_000_000, 0)}
	a, b, c := newDepUpstream(t, "a"), newDepUpstream(t, "b"), newDepUpstream(t, "c")
	r, probes := depRegistry(t, "", clock, a, b, c)
	count := map[string]int{}
	for i := 0; i < 9; i++ {
		name, err := depChat(t, r)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		count[name]++
	}
	if count["a"] != 3 || count["b"] != 3 || count["c"] != 3 {
		t.Fatalf("round-robin spread %v, want 3 each", count)
	}
	b.kill()
	clear(count)
	for i := 0; i < 12; i++ {
		name, err := depChat(t, r)
		if err != nil {
			t.Fatalf("call %d with b dead: %v", i, err)
		}
		count[name]++
	}
	if count["b"] != 0 || count["a"]+count["c"] != 12 || count["a"] < 5 || count["c"] < 5 {
		t.Fatalf("with b dead: %v", count)
	}
	st := depState(r, "b")
	if st.State != "cooling" || st.Errors != 1 || !strings.Contains(st.LastError, "could not reach local deployment b") {
		t.Fatalf("b after dying: %+v", st)
	}
	b.start(b.addr)
	// Still cooling: b gets nothing even though it is back.
	if name, err := depChat(t, r); err != nil || name == "b" {
		t.Fatalf("while cooling: %q %v", name, err)
	}
	clock.add(coolBase + time.Second)
	if st := depState(r, "b"); st.State != "probing" {
		t.Fatalf("after the cool-down: %+v", st)
	}
	// The next call starts the probe and is served by another deployment.
	if name, err := depChat(t, r); err != nil || name == "b" {
		t.Fatalf("while probing: %q %v", name, err)
	}
	if p := <-probes; p != "b <nil>" {
		t.Fatalf("probe: %s", p)
	}
	clear(count)
	for i := 0; i < 9; i++ {
		name, err := depChat(t, r)
		if err != nil {
			t.Fatalf("call %d after recovery: %v", i, err)
		}
		count[name]++
	}
	if count["b"] < 2 {
		t.Fatalf("traffic did not come back to b: %v", count)
	}
	if st := depState(r, "b"); st.State != "healthy" || st.Requests < 5 {
		t.Fatalf("b after recovery: %+v", st)
	}
}

// TestDeploymentsAllDown: when every deployment fails, the error names
// each one and why; the next call finds them all cooling and says so
// without calling any; a failed probe lengthens the cool-down.
func TestDeploymentsAllDown(t *testing.T) {
	clock := &depClock{t: time.Unix(1_700_000_000, 0)}
	a, b := newDepUpstream(t, "a"), newDepUpstream(t, "b")
	a.status.Store(503)
	b.kill()
	r, probes := depRegistry(t, "", clock, a, b)
	_, err := depChat(t, r)
	msg := publicMsg(err)
	if engine.ErrorCode(err) != engine.CodeUpstream || !strings.Contains(msg, "no deployment of local:llama could answer") ||
		!strings.Contains(msg, "a: local deployment a failed (HTTP 503)") || !strings.Contains(msg, "b: could not reach local deployment b") {
		t.Fatalf("all down: %v", err)
	}
	if a.calls.Load() != 1 {
		t.Fatalf("a got %d calls, want 1 (no retry on the same deployment)", a.calls.Load())
	}
	_, err = depChat(t, r)
	if engine.ErrorCode(err) != engine.CodeUnavailable || !strings.Contains(publicMsg(err), "a: cooling down for 5s after: local deployment a failed (HTTP 503)") {
		t.Fatalf("all cooling: %v", err)
	}
	if a.calls.Load() != 1 {
		t.Fatalf("a was called while cooling")
	}
	clock.add(coolBase)
	if _, err = depChat(t, r); err == nil {
		t.Fatal("a call succeeded with a answering 503 and b dead")
	}
	got := []string{<-probes, <-probes}
	if !strings.Contains(strings.Join(got, ","), "b health probe failed") || !strings.Contains(strings.Join(got, ","), "a <nil>") {
		t.Fatalf("probes: %v", got) // a answers /models: it is up, its chat failed
	}
	if st := depState(r, "b"); st.State != "cooling" || !st.CoolingUntil.Equal(clock.now().Add(2*coolBase)) {
		t.Fatalf("b after a failed probe: %+v", st)
	}
}

// TestDeploymentsProbeWait: a call that finds no deployment but one whose
// cool-down just ended waits for its probe and is served by it, rather
// than failing while the server is back.
func TestDeploymentsProbeWait(t *testing.T) {
	clock := &depClock{t: time.Unix(1_700_000_000, 0)}
	a, b := newDepUpstream(t, "a"), newDepUpstream(t, "b")
	a.status.Store(503)
	b.status.Store(503)
	r, probes := depRegistry(t, "", clock, a, b)
	if _, err := depChat(t, r); err == nil {
		t.Fatal("both answer 503")
	}
	a.status.Store(0)
	clock.add(coolBase)
	name, err := depChat(t, r)
	if err != nil || name != "a" {
		t.Fatalf("after the cool-down: %q %v", name, err)
	}
	<-probes
	<-probes
	if a.calls.Load() < 2 {
		t.Fatalf("a got %d calls", a.calls.Load())
	}
}

// TestDeploymentsRequestFault: a 4xx of the request's own making is
// returned as it is, not tried elsewhere, and leaves the deployment
// healthy.
func TestDeploymentsRequestFault(t *testing.T) {
	clock := &depClock{t: time.Unix(1_700_000_000, 0)}
	a, b := newDepUpstream(t, "a"), newDepUpstream(t, "b")
	a.status.Store(400)
	r, _ := depRegistry(t, "", clock, a, b)
	_, err := depChat(t, r)
	if engine.ErrorCode(err) != engine.CodeBadRequest || b.calls.Load() != 0 {
		t.Fatalf("400: %v, b calls %d", err, b.calls.Load())
	}
	if st := depState(r, "a"); st.State != "healthy" || st.Errors != 0 {
		t.Fatalf("a after a 400: %+v", st)
	}
}

// TestDeploymentsLeastBusy: with two deployments holding a call each,
// least-busy sends every other call to the idle one.
func TestDeploymentsLeastBusy(t *testing.T) {
	clock := &depClock{t: time.Unix(1_700_000_000, 0)}
	a, b, c := newDepUpstream(t, "a"), newDepUpstream(t, "b"), newDepUpstream(t, "c")
	arrived, hold := make(chan string, 16), make(chan struct{})
	for _, u := range []*depUpstream{a, b, c} {
		u.arrived = arrived
	}
	a.hold, b.hold = hold, hold
	r, _ := depRegistry(t, StrategyLeastBusy, clock, a, b, c)
	done := make(chan error, 16)
	count := map[string]int{}
	for i := 0; i < 10; i++ {
		go func() { _, err := depChat(t, r); done <- err }()
		name := <-arrived
		count[name]++
		if name == "c" {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
	}
	close(hold)
	for i := 0; i < count["a"]+count["b"]; i++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if count["a"] != 1 || count["b"] != 1 || count["c"] != 8 {
		t.Fatalf("least-busy spread %v, want a 1, b 1, c 8", count)
	}
}

// TestDeploymentsLatency: the latency strategy measures each deployment
// once, then sends calls to the fastest.
func TestDeploymentsLatency(t *testing.T) {
	clock := &depClock{t: time.Unix(1_700_000_000, 0)}
	a, b, c := newDepUpstream(t, "a"), newDepUpstream(t, "b"), newDepUpstream(t, "c")
	a.delay, b.delay = 400*time.Millisecond, 400*time.Millisecond // before any call
	r, _ := depRegistry(t, StrategyLatency, clock, a, b, c)
	count := map[string]int{}
	for i := 0; i < 20; i++ {
		name, err := depChat(t, r)
		if err != nil {
			t.Fatal(err)
		}
		count[name]++
	}
	if count["c"] < 15 {
		t.Fatalf("latency spread %v, want most on c", count)
	}
	if st := depState(r, "a"); st.P50Ms < 400 || st.LatencyMs < 400 {
		t.Fatalf("a's latency: %+v", st)
	}
	// Streams are measured by their time to first token.
	a.set(func() { a.delay = 0 })
	b.set(func() { b.delay = 0 })
	c.set(func() { c.delay = 400 * time.Millisecond })
	for i := 0; i < 4; i++ {
		st, err := mustModel(t, r).ChatStream(context.Background(), &engine.ChatRequest{Model: "llama", Messages: []engine.Message{{Role: "user", Content: engine.TextContent("hi")}}})
		if err != nil {
			t.Fatal(err)
		}
		drain(t, st)
	}
	if st := depState(r, "c"); st.LatencyMs < 100 {
		t.Fatalf("c's stream latency not measured: %+v", st)
	}
}

// TestDeploymentsStreamStays: a stream that broke after its first chunk
// is not moved to another deployment; a stream that could not be opened
// is.
func TestDeploymentsStreamStays(t *testing.T) {
	clock := &depClock{t: time.Unix(1_700_000_000, 0)}
	a, b := newDepUpstream(t, "a"), newDepUpstream(t, "b")
	a.breakStream = true
	r, _ := depRegistry(t, "", clock, a, b)
	ctx, note := engine.WithDeploymentNote(context.Background())
	req := &engine.ChatRequest{Model: "llama", Messages: []engine.Message{{Role: "user", Content: engine.TextContent("hi")}}}
	st, err := mustModel(t, r).ChatStream(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := st.Recv()
	if err != nil || ch.Choices[0].Delta.Content == nil || *ch.Choices[0].Delta.Content != "a" {
		t.Fatalf("first chunk: %+v %v", ch, err)
	}
	for err == nil {
		_, err = st.Recv()
	}
	st.Close()
	if errors.Is(err, io.EOF) || b.calls.Load() != 0 || note.Name() != "a" {
		t.Fatalf("broken stream: %v, b calls %d, noted %q", err, b.calls.Load(), note.Name())
	}
	if s := depState(r, "a"); s.State != "cooling" || s.InFlight != 0 {
		t.Fatalf("a after its stream broke: %+v", s)
	}
	// a cooling: the next stream opens on b; with b killed too, on neither.
	st, err = mustModel(t, r).ChatStream(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if got := drain(t, st); got != "b" || note.Name() != "b" {
		t.Fatalf("second stream from %q (noted %q)", got, note.Name())
	}
	clock.add(time.Hour)
	a.set(func() { a.breakStream = false })
	b.kill()
	a.kill()
	if _, err := mustModel(t, r).ChatStream(ctx, req); err == nil {
		t.Fatal("a stream opened with every deployment down")
	}
}

// TestDeploymentsLimits: a deployment at its max_concurrency or past its
// tpm gets no more calls while the other can take them.
func TestDeploymentsLimits(t *testing.T) {
	clock := &depClock{t: time.Unix(1_700_000_000, 0)}
	a, b := newDepUpstream(t, "a"), newDepUpstream(t, "b")
	arrived, hold := make(chan string, 1), make(chan struct{})
	a.arrived, a.hold = arrived, hold
	md := ModelDeployments{Model: "local:llama", Servers: []Deployment{
		{Name: "a", BaseURL: a.url(), MaxConcurrency: 1}, {Name: "b", BaseURL: b.url(), TPM: 5}}}
	r, err := New(Config{Deployments: []ModelDeployments{md}, Now: clock.now, Counter: &engine.Local{}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := depChatAny(r); done <- err }()
	<-arrived // a holds one call: at its max
	if name, err := depChatAny(r); err != nil || name != "b" {
		t.Fatalf("b should take the call a cannot: %q %v", name, err)
	}
	// b's answer spent its 5 tokens in this one-minute window (a call that
	// crosses into the next window finds b open again).
	_, err = depChatAny(r)
	if err == nil && b.calls.Load() != 2 {
		t.Fatal("b answered past its tpm")
	}
	if err != nil && !strings.Contains(publicMsg(err), "a: at its max_concurrency of 1; b: used its tpm of 5 tokens this minute") {
		t.Fatalf("a full, b spent: %v", err)
	}
	close(hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if a.calls.Load() != 1 {
		t.Fatalf("a got %d calls past its max_concurrency", a.calls.Load())
	}
}

// TestValidateDeployments: each rule's error names the field.
func TestValidateDeployments(t *testing.T) {
	err := ValidateDeployments("deployments", []ModelDeployments{
		{Model: "llama", Strategy: "fastest", Servers: []Deployment{{Name: "a b", BaseURL: "ftp://x"}}},
		{Model: "local:x", Servers: []Deployment{{Name: "a", BaseURL: "http://h/v1", Weight: -1, MaxConcurrency: -2, TPM: -3}, {Name: "a", BaseURL: "http://h2/v1"}}},
		{Model: "hearth:echo", Servers: []Deployment{{Name: "a", BaseURL: "http://h"}}},
		{Model: "local:x"},
	})
	for _, want := range []string{
		`deployments[0].model "llama": must be provider:model`,
		`deployments[0].strategy "fastest": use round-robin, least-busy or latency`,
		`deployments[0].servers[0].name "a b": must be 1-64 letters`,
		`deployments[0].servers[0].base_url "ftp://x": must be an absolute http(s) URL`,
		`deployments[1].servers[0].weight -1`,
		`deployments[1].servers[0].max_concurrency -2`,
		`deployments[1].servers[0].tpm -3`,
		`deployments[1].servers[1].name "a": used twice`,
		`deployments[2].model "hearth:echo": the offline hearth provider has no deployments`,
		`deployments[3].model "local:x": declared twice`,
		`deployments[3].servers: must list at least one deployment`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
	r, err := New(Config{Deployments: []ModelDeployments{{Model: "local:x", Servers: []Deployment{{Name: "a", BaseURL: "http://h/v1"}}}}})
	if err != nil || !r.Known("local") || r.NeedsKey("local") || len(r.Catalogue()["local"]) != 1 || r.Catalogue()["local"][0].ID != "local:x" {
		t.Fatalf("alias provider: %v %+v", err, r.Catalogue()["local"])
	}
	if _, err := r.ChatModel(engine.ModelRef{Provider: "local", Model: "other"}); !strings.Contains(publicMsg(err), `model "local:other" has no deployments (provider local serves local:x)`) {
		t.Fatalf("an alias provider serves only its deployed models: %v", err)
	}
	if _, err := New(Config{Deployments: []ModelDeployments{{Model: "local:x"}}}); err == nil {
		t.Fatal("New accepted an invalid deployment")
	}
}

func mustModel(t *testing.T, r *Registry) engine.ChatModel {
	t.Helper()
	cm, err := r.ChatModel(engine.ModelRef{Provider: "local", Model: "llama"})
	if err != nil {
		t.Fatal(err)
	}
	return cm
}

func depChatAny(r *Registry) (string, error) {
	cm, err := r.ChatModel(engine.ModelRef{Provider: "local", Model: "llama"})
	if err != nil {
		return "", err
	}
	resp, err := cm.Chat(context.Background(), &engine.ChatRequest{Model: "llama", Messages: []engine.Message{{Role: "user", Content: engine.TextContent("hi")}}})
	if err != nil {
		return "", err
	}
	return engine.Completion(resp), nil
}

// drain reads a stream to its end and returns its text.
func drain(t *testing.T, st engine.ChatStream) string {
	t.Helper()
	defer st.Close()
	var sb strings.Builder
	for {
		ch, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return sb.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range ch.Choices {
			if c.Delta.Content != nil {
				sb.WriteString(*c.Delta.Content)
			}
		}
	}
}

// publicMsg is an engine error's message.
func publicMsg(err error) string {
	var ee *engine.Error
	if errors.As(err, &ee) {
		return ee.Message
	}
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestDeploymentsTimeout: a deployment that does not answer within the
// call timeout counts as failed and the call is served by the next one.
func TestDeploymentsTimeout(t *testing.T) {
	clock := &depClock{t: time.Unix(1_700_000_000, 0)}
	a, b := newDepUpstream(t, "a"), newDepUpstream(t, "b")
	hold := make(chan struct{})
	a.hold = hold
	t.Cleanup(func() { close(hold) })
	md := ModelDeployments{Model: "local:llama", Servers: []Deployment{{Name: "a", BaseURL: a.url()}, {Name: "b", BaseURL: b.url()}}}
	r, err := New(Config{Deployments: []ModelDeployments{md}, Now: clock.now, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	name, err := depChatAny(r)
	if err != nil || name != "b" {
		t.Fatalf("call: %q %v", name, err)
	}
	if st := depState(r, "a"); st.State != "cooling" || !strings.Contains(st.LastError, "timed out") && !strings.Contains(st.LastError, "in time") {
		t.Fatalf("a after timing out: %+v", st)
	}
}

// TestDeploymentsCallerGone: a stream its caller cancels after the first
// chunk does not count against the deployment.
func TestDeploymentsCallerGone(t *testing.T) {
	clock := &depClock{t: time.Unix(1_700_000_000, 0)}
	a, b := newDepUpstream(t, "a"), newDepUpstream(t, "b")
	stall := make(chan struct{})
	defer close(stall)
	a.stall = stall
	r, _ := depRegistry(t, "", clock, a, b)
	ctx, cancel := context.WithCancel(context.Background())
	st, err := mustModel(t, r).ChatStream(ctx, &engine.ChatRequest{Model: "llama", Messages: []engine.Message{{Role: "user", Content: engine.TextContent("hi")}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Recv(); err != nil {
		t.Fatal(err)
	}
	cancel()
	for err == nil {
		_, err = st.Recv()
	}
	st.Close()
	if s := depState(r, "a"); s.State != "healthy" || s.Errors != 0 || s.InFlight != 0 {
		t.Fatalf("a after its caller left: %+v (%v)", s, err)
	}
}
