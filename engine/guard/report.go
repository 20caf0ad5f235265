package guard

import (
	"sort"
	"sync"
)

// Sink receives the events of checks: a Report, or a recorder that also
// counts them.
type Sink interface {
	Add(stage, rule, action string, n int)
}

// add records an event in s, when there is one.
func add(s Sink, stage, rule, action string, n int) {
	if s != nil {
		s.Add(stage, rule, action, n)
	}
}

// Report collects the events of one request; it is safe for concurrent
// use (a stream ends on another goroutine than the one that started it).
type Report struct {
	mu     sync.Mutex
	events []Event
}

// Add records n matches of a rule.
func (r *Report) Add(stage, rule, action string, n int) {
	if r == nil || n == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.events {
		if e := &r.events[i]; e.Stage == stage && e.Rule == rule && e.Action == action {
			e.Count += n
			return
		}
	}
	r.events = append(r.events, Event{Stage: stage, Rule: rule, Action: action, Count: n})
}

// Events returns a copy of the events so far, ordered by stage and rule.
func (r *Report) Events() []Event {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	out := append([]Event(nil), r.events...)
	r.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Stage != out[j].Stage {
			return out[i].Stage < out[j].Stage
		}
		return out[i].Rule < out[j].Rule
	})
	return out
}
