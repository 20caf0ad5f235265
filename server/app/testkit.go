package app

import (
	"context"

	"github.com/hearth-dev/hearth/providers/fault"
)

// Testkit holds the settings meant for test suites (README "Using Hearth
// in your tests"). The zero value turns them all off.
type Testkit struct {
	// Faults turns fault injection on: the LB-Fault request header is
	// honoured, and FaultRules apply to every upstream call.
	Faults     bool
	FaultRules []fault.Rule
}

// buildTestkit puts the test-suite layers around the provider transport
// and hands the server its LB-Fault reader. Fault injection keeps no
// state of its own (see fault.Transport), so it behaves the same on each
// node of a cluster.
func (a *App) buildTestkit(cfg *Config) {
	tk := cfg.Testkit
	if !tk.Faults {
		return
	}
	cfg.Providers.Wrap = append(cfg.Providers.Wrap, fault.Wrap(tk.FaultRules))
	cfg.HTTP.Faults = func(ctx context.Context, v string) (context.Context, error) {
		rules, err := fault.Parse(v)
		if err != nil {
			return ctx, err
		}
		return fault.WithRequest(ctx, rules), nil
	}
	a.note("testkit: fault injection")
}
