// Package fault makes Hearth's upstreams misbehave on cue, for test suites
// that want to see retries, fallbacks and error shapes without writing a
// fake server. It is an http.RoundTripper layer of the provider transport
// chain (see providers.Config.Wrap): an injected 429 or 500 is answered in
// place of the upstream, so everything above the transport (retries with
// backoff, fallback models, error mapping) runs as in production.
//
// A rule is "[provider:]kind[@rate][*times]", rules are separated by
// commas. Kinds: an HTTP status 400-599 ("429", "500"), "timeout" (the
// call hangs until Hearth's own timeout or the client gives up),
// "cut-stream-after=N" (the answer ends abruptly after N stream events) and
// "slow-first-token=D" (the answer's first byte waits D, a Go duration).
// One kind is not about upstreams: "slow-commit=D" holds every group
// commit of thread writes for D before it commits, server-wide only (no
// provider, @rate or *times; never in the LB-Fault header), so a test can
// see that no run is answered before its messages are durable.
// A rule without a provider applies to every upstream; @rate (0 < rate <=
// 1, default 1) applies it to that share of calls; *times applies it to
// the first N upstream calls of one request only (a 429*1 is followed by a
// successful retry). docs/hearth-in-your-tests.md documents them.
package fault

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Kinds of fault.
const (
	KindStatus         = "status"
	KindTimeout        = "timeout"
	KindCutStream      = "cut-stream-after"
	KindSlowFirstToken = "slow-first-token"
	KindSlowCommit     = "slow-commit"
)

// MaxDelay bounds slow-first-token and slow-commit.
const MaxDelay = 5 * time.Minute

// Rule is one parsed fault rule.
type Rule struct {
	// Provider limits the rule to one upstream ("" means every one).
	Provider string
	// Kind is one of the Kind constants.
	Kind string
	// Status is the HTTP status of a KindStatus rule.
	Status int
	// Events is the number of stream events a KindCutStream rule lets through.
	Events int
	// Delay is the wait of a KindSlowFirstToken or KindSlowCommit rule.
	Delay time.Duration
	// Rate is the share of calls the rule applies to (0 < Rate <= 1).
	Rate float64
	// Times, when > 0, applies the rule to the first Times calls of a
	// request only.
	Times int
}

// String is the rule in the syntax Parse reads.
func (r Rule) String() string {
	var b strings.Builder
	if r.Provider != "" {
		b.WriteString(r.Provider + ":")
	}
	switch r.Kind {
	case KindStatus:
		b.WriteString(strconv.Itoa(r.Status))
	case KindCutStream:
		fmt.Fprintf(&b, "%s=%d", r.Kind, r.Events)
	case KindSlowFirstToken, KindSlowCommit:
		fmt.Fprintf(&b, "%s=%s", r.Kind, r.Delay)
	default:
		b.WriteString(r.Kind)
	}
	if r.Rate != 1 {
		b.WriteString("@" + strconv.FormatFloat(r.Rate, 'g', -1, 64))
	}
	if r.Times > 0 {
		b.WriteString("*" + strconv.Itoa(r.Times))
	}
	return b.String()
}

// Parse reads a comma-separated list of rules. An empty list is an error.
func Parse(s string) ([]Rule, error) {
	var rules []Rule
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		r, err := parseRule(f)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", f, err)
		}
		rules = append(rules, r)
	}
	if len(rules) == 0 {
		return nil, errors.New("no fault rule given")
	}
	return rules, nil
}

func parseRule(f string) (Rule, error) {
	r := Rule{Rate: 1}
	if i := strings.LastIndex(f, "*"); i >= 0 {
		n, err := strconv.Atoi(f[i+1:])
		if err != nil || n < 1 {
			return r, errors.New("*times must be a whole number >= 1")
		}
		r.Times, f = n, f[:i]
	}
	if i := strings.LastIndex(f, "@"); i >= 0 {
		p, err := strconv.ParseFloat(f[i+1:], 64)
		if err != nil || !(p > 0 && p <= 1) {
			return r, errors.New("@rate must be a number in (0, 1]")
		}
		r.Rate, f = p, f[:i]
	}
	kind := f
	if i := strings.Index(f, ":"); i >= 0 {
		r.Provider, kind = strings.ToLower(strings.TrimSpace(f[:i])), f[i+1:]
		if r.Provider == "" {
			return r, errors.New("empty provider before ':'")
		}
	}
	kind = strings.TrimSpace(kind)
	name, arg, hasArg := strings.Cut(kind, "=")
	switch {
	case name == KindTimeout && !hasArg:
		r.Kind = KindTimeout
	case name == KindCutStream && hasArg:
		n, err := strconv.Atoi(arg)
		if err != nil || n < 0 {
			return r, errors.New("cut-stream-after=N needs a whole number N >= 0")
		}
		r.Kind, r.Events = KindCutStream, n
	case name == KindSlowFirstToken && hasArg:
		d, err := time.ParseDuration(arg)
		if err != nil || d <= 0 || d > MaxDelay {
			return r, fmt.Errorf("slow-first-token=D needs a duration such as 2s, at most %s", MaxDelay)
		}
		r.Kind, r.Delay = KindSlowFirstToken, d
	case name == KindSlowCommit && hasArg:
		d, err := time.ParseDuration(arg)
		if err != nil || d <= 0 || d > MaxDelay {
			return r, fmt.Errorf("slow-commit=D needs a duration such as 200ms, at most %s", MaxDelay)
		}
		if r.Provider != "" || r.Rate != 1 || r.Times > 0 {
			return r, errors.New("slow-commit=D holds every thread write commit of the server: it takes no provider, @rate or *times")
		}
		r.Kind, r.Delay = KindSlowCommit, d
	default:
		n, err := strconv.Atoi(kind)
		if err != nil || hasArg {
			return r, errors.New("unknown fault: use an HTTP status 400-599, timeout, cut-stream-after=N, slow-first-token=D or slow-commit=D")
		}
		if n < 400 || n > 599 {
			return r, errors.New("a status fault must be 400-599")
		}
		r.Kind, r.Status = KindStatus, n
	}
	return r, nil
}
