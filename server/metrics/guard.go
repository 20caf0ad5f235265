package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// maxGuardRules bounds the distinct rule labels of hearth_guard_actions_total:
// national-id patterns and injection rules are named in pipe and key
// policies, so past the cap further names count as rule="other".
const maxGuardRules = 200

// guardCounter counts guardrail actions by stage, rule and action.
type guardCounter struct {
	vec   *prometheus.CounterVec
	mu    sync.Mutex
	rules map[string]bool
}

// newGuardCounter registers hearth_guard_actions_total on f.
func newGuardCounter(f factory) *guardCounter {
	return &guardCounter{rules: map[string]bool{}, vec: f.counter("hearth_guard_actions_total",
		"Guardrail actions, by stage (input, context, output), rule (pii.email, injection.ignore_instructions, ...) and action (annotate, redact, flag, strip, refuse).",
		"stage", "rule", "action")}
}

// GuardAction implements engine.GuardMetrics: n matches of a rule at a
// stage with an action. Each node counts its own requests.
func (m *Metrics) GuardAction(stage, rule, action string, n int) {
	g := m.guardActions
	g.mu.Lock()
	if !g.rules[rule] {
		if len(g.rules) >= maxGuardRules {
			rule = "other"
		}
		g.rules[rule] = true
	}
	g.mu.Unlock()
	g.vec.WithLabelValues(stage, rule, action).Add(float64(n))
}
