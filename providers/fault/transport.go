package fault

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/hearth-dev/hearth/providers/netguard"
)

// Header is the request header that asks for faults on one request; the
// server honours it only when faults are on (HEARTH_FAULTS).
const Header = "LB-Fault"

// request is the fault state of one Hearth request: its LB-Fault rules
// and how many upstream calls each has hit so far.
type request struct {
	rules []Rule
	hits  []atomic.Int64
}

type requestKey struct{}

// WithRequest returns ctx carrying the rules of one request's LB-Fault
// header; they are tried before the server-wide rules. The counters of
// *times live in ctx, so they are per request and need nothing shared
// between Hearth nodes.
func WithRequest(ctx context.Context, rules []Rule) context.Context {
	return context.WithValue(ctx, requestKey{}, &request{rules: rules, hits: make([]atomic.Int64, len(rules))})
}

// Transport injects faults into the upstream calls it carries, then hands
// them to Base. Rules are the server-wide rules (HEARTH_FAULTS); a
// request's own rules (WithRequest) win. It keeps no state of its own:
// each Hearth node draws its own random numbers for @rate, so in cluster
// mode a rate holds per node and therefore overall.
type Transport struct {
	Base  http.RoundTripper
	Rules []Rule
	// Float returns a number in [0, 1) for @rate; nil means math/rand.
	Float func() float64
}

// Wrap returns a function that puts a fault Transport with rules in front
// of a base transport (the shape providers.Config.Wrap takes).
func Wrap(rules []Rule) func(http.RoundTripper) http.RoundTripper {
	return func(base http.RoundTripper) http.RoundTripper { return &Transport{Base: base, Rules: rules} }
}

// RoundTrip applies the first rule that matches the call's provider, or
// passes the call on unchanged.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	r, ok := t.pick(ctx, netguard.Feature(ctx))
	if !ok {
		return t.Base.RoundTrip(req)
	}
	switch r.Kind {
	case KindStatus:
		if req.Body != nil {
			req.Body.Close()
		}
		return statusResponse(req, r), nil
	case KindTimeout:
		if req.Body != nil {
			req.Body.Close()
		}
		<-ctx.Done()
		return nil, fmt.Errorf("injected fault %s: %w", r, context.Cause(ctx))
	}
	resp, err := t.Base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	switch r.Kind {
	case KindCutStream:
		resp.Body = &cutBody{rc: resp.Body, left: r.Events}
	case KindSlowFirstToken:
		resp.Body = &slowBody{rc: resp.Body, ctx: ctx, delay: r.Delay}
	}
	return resp, nil
}

// pick returns the rule to apply to one call to provider.
func (t *Transport) pick(ctx context.Context, provider string) (Rule, bool) {
	if st, _ := ctx.Value(requestKey{}).(*request); st != nil {
		for i, r := range st.rules {
			if !matches(r, provider) || !t.draw(r.Rate) {
				continue
			}
			if r.Times > 0 && st.hits[i].Add(1) > int64(r.Times) {
				continue
			}
			return r, true
		}
	}
	for _, r := range t.Rules {
		if matches(r, provider) && t.draw(r.Rate) {
			return r, true
		}
	}
	return Rule{}, false
}

// matches tells whether r applies to a call to provider; slow-commit
// rules apply to no upstream call.
func matches(r Rule, provider string) bool {
	return r.Kind != KindSlowCommit && (r.Provider == "" || r.Provider == provider)
}

// SlowCommit returns the delay of the last slow-commit rule of rules (0
// without one).
func SlowCommit(rules []Rule) time.Duration {
	var d time.Duration
	for _, r := range rules {
		if r.Kind == KindSlowCommit {
			d = r.Delay
		}
	}
	return d
}

func (t *Transport) draw(rate float64) bool {
	if rate >= 1 {
		return true
	}
	f := t.Float
	if f == nil {
		f = rand.Float64
	}
	return f() < rate
}

// statusResponse is the upstream error answer of a status fault, in the
// {"error":{"message","type","code"}} shape every adapter reads.
func statusResponse(req *http.Request, r Rule) *http.Response {
	msg := fmt.Sprintf("injected fault %s (HTTP %d %s)", r, r.Status, http.StatusText(r.Status))
	body := []byte(`{"error":{"message":` + strconv.Quote(msg) + `,"type":"hearth_fault","code":"fault_injected"}}`)
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	return &http.Response{
		Status: fmt.Sprintf("%d %s", r.Status, http.StatusText(r.Status)), StatusCode: r.Status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: h, Request: req,
		Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)),
	}
}

// cutBody ends the answer abruptly after left stream events (each ends
// with a blank line), as a dropped connection would.
type cutBody struct {
	rc   io.ReadCloser
	left int
	prev byte
}

func (b *cutBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, io.ErrUnexpectedEOF
	}
	n, err := b.rc.Read(p)
	for i := 0; i < n; i++ {
		c := p[i]
		if c == '\r' {
			continue
		}
		end := c == '\n' && b.prev == '\n'
		b.prev = c
		if end {
			b.prev = 0
			if b.left--; b.left == 0 {
				return i + 1, nil
			}
		}
	}
	return n, err
}

func (b *cutBody) Close() error { return b.rc.Close() }

// slowBody holds back the answer's first byte for delay.
type slowBody struct {
	rc     io.ReadCloser
	ctx    context.Context
	delay  time.Duration
	waited bool
}

func (b *slowBody) Read(p []byte) (int, error) {
	if !b.waited {
		b.waited = true
		t := time.NewTimer(b.delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-b.ctx.Done():
			return 0, context.Cause(b.ctx)
		}
	}
	return b.rc.Read(p)
}

func (b *slowBody) Close() error { return b.rc.Close() }
