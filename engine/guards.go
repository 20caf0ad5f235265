package engine

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/hearth-dev/hearth/engine/guard"
)

// GuardMetrics is a Metrics that also counts guardrail actions; the
// Prometheus adapter implements it.
type GuardMetrics interface {
	GuardAction(stage, rule, action string, n int)
}

// Guards holds the server-wide guardrail policy and compiles the policy
// of each request: the server's merged with its key's and its pipe's
// (guard.Merge). Compiled policies are cached in this process, keyed by
// their JSON: every node of a cluster compiles the same policies from the
// same shared pipes and keys, so the cache changes nothing but speed.
type Guards struct {
	server  *guard.Policy
	base    *guard.Guard
	cls     guard.Classifier
	metrics GuardMetrics
	mu      sync.Mutex
	cache   map[string]*guard.Guard
}

// maxGuardCache bounds the compiled policies kept; the cache starts over
// when it is full.
const maxGuardCache = 256

// NewGuards compiles the server-wide policy (nil: none); cls, when not
// nil, is the local classifier injection checks also ask; m receives the
// action counts when it implements GuardMetrics.
func NewGuards(server *guard.Policy, cls guard.Classifier, m Metrics) (*Guards, error) {
	base, err := guard.Compile(server, cls)
	if err != nil {
		return nil, err
	}
	gs := &Guards{server: server, base: base, cls: cls, cache: map[string]*guard.Guard{}}
	gs.metrics, _ = m.(GuardMetrics)
	return gs, nil
}

// For returns the compiled policy of a request whose key and pipe carry
// the given policies (nil ones are skipped); nil when nothing is checked.
func (gs *Guards) For(policies ...*guard.Policy) *guard.Guard {
	if gs == nil {
		return nil
	}
	extra := false
	for _, p := range policies {
		extra = extra || p != nil
	}
	if !extra {
		return gs.base
	}
	merged := guard.Merge(append([]*guard.Policy{gs.server}, policies...)...)
	b, _ := json.Marshal(merged)
	gs.mu.Lock()
	defer gs.mu.Unlock()
	if g, ok := gs.cache[string(b)]; ok {
		return g
	}
	g, err := guard.Compile(merged, gs.cls)
	if err != nil {
		// Stored policies were validated when written; one that no longer
		// compiles falls back to the server's.
		return gs.base
	}
	if len(gs.cache) >= maxGuardCache {
		clear(gs.cache)
	}
	gs.cache[string(b)] = g
	return g
}

// sink returns the recorder of a request's guardrail events: its report
// (nil: none) and the metrics.
func (gs *Guards) sink(rep *guard.Report) *guardSink {
	return &guardSink{rep: rep, m: gs.metrics}
}

// guardSink records events in a request's report and counts them.
type guardSink struct {
	rep *guard.Report
	m   GuardMetrics
}

// Add records n matches of a rule.
func (s *guardSink) Add(stage, rule, action string, n int) {
	s.rep.Add(stage, rule, action, n)
	if s.m != nil {
		s.m.GuardAction(stage, rule, action, n)
	}
}

var _ guard.Sink = (*guardSink)(nil)

// guardReportCtx is a context carrying a request's guardrail report.
type guardReportCtx struct {
	context.Context
	rep guard.Report
}

type guardReportKey struct{}

func (c *guardReportCtx) Value(key any) any {
	if _, ok := key.(guardReportKey); ok {
		return &c.rep
	}
	return c.Context.Value(key)
}

// WithGuardReport returns ctx carrying a new report of guardrail events,
// which model calls made with it fill and run records read.
func WithGuardReport(ctx context.Context) context.Context {
	return &guardReportCtx{Context: ctx}
}

// GuardReportOf returns the report WithGuardReport put in ctx, or nil.
func GuardReportOf(ctx context.Context) *guard.Report {
	r, _ := ctx.Value(guardReportKey{}).(*guard.Report)
	return r
}

// guardRun is what a model call made for a pipe run carries: the run's
// compiled policy and report, and that the run checked its input and
// context itself.
type guardRun struct {
	g   *guard.Guard
	rep *guard.Report
}

type guardRunKey struct{}

type guardRunCtx struct {
	context.Context
	run guardRun
}

func (c *guardRunCtx) Value(key any) any {
	switch key.(type) {
	case guardRunKey:
		return &c.run
	case guardReportKey:
		return c.run.rep
	}
	return c.Context.Value(key)
}

// guardRunOf returns the guardRun of a pipe run's model call, or nil.
func guardRunOf(ctx context.Context) *guardRun {
	r, _ := ctx.Value(guardRunKey{}).(*guardRun)
	return r
}

// validateGuard checks a stored policy (a key's or a pipe's) as a
// request field.
func validateGuard(field string, p *guard.Policy) error {
	if err := p.Validate(field); err != nil {
		return &Error{Code: CodeBadRequest, Field: field, Message: err.Error()}
	}
	return nil
}

// guardError turns a refusal into the 4xx every surface answers; it names
// the rule and the stage, never the matched text.
func guardError(err error) error {
	var ref *guard.Refusal
	if errors.As(err, &ref) {
		return &Error{Code: CodeBadRequest, Message: ref.Error()}
	}
	return err
}
