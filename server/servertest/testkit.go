package servertest

import (
	"github.com/hearth-dev/hearth/providers/fault"
	"github.com/hearth-dev/hearth/server/app"
)

// WithFaults turns fault injection on, as HEARTH_FAULTS does: the
// LB-Fault request header is honoured, and rules (for example
// "openai:429@0.1"; none for HEARTH_FAULTS=on) apply to every upstream
// call. It panics on a rule fault.Parse refuses.
func WithFaults(rules ...string) Option {
	var parsed []fault.Rule
	for _, r := range rules {
		rs, err := fault.Parse(r)
		if err != nil {
			panic("servertest.WithFaults: " + err.Error())
		}
		parsed = append(parsed, rs...)
	}
	return func(c *app.Config) { c.Testkit.Faults, c.Testkit.FaultRules = true, parsed }
}

// WithRecord writes every upstream exchange to dir, as HEARTH_RECORD does.
func WithRecord(dir string) Option {
	return func(c *app.Config) { c.Testkit.Record = dir }
}

// WithReplay answers every upstream call from the recordings in dir, as
// HEARTH_REPLAY does; miss is HEARTH_REPLAY_MISS ("" means error).
func WithReplay(dir, miss string) Option {
	return func(c *app.Config) { c.Testkit.Replay, c.Testkit.ReplayMiss = dir, miss }
}

// WithDeterministic turns deterministic mode on, as HEARTH_DETERMINISTIC=on
// does: ids, generated keys and created timestamps come from a seeded
// sequence, so the same requests get byte-identical answers.
func WithDeterministic() Option {
	return func(c *app.Config) { c.Testkit.Deterministic = true }
}
