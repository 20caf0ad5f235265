package app

import (
	"context"
	"errors"
	"net/http"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fault"
	"github.com/hearth-dev/hearth/providers/replay"
)

// Testkit holds the settings meant for test suites
// (docs/hearth-in-your-tests.md). The zero value turns them all off.
type Testkit struct {
	// Faults turns fault injection on: the LB-Fault request header is
	// honoured, and FaultRules apply to every upstream call.
	Faults     bool
	FaultRules []fault.Rule
	// Record, when set, writes every upstream exchange to this directory;
	// Replay answers every upstream call from one, ReplayMiss
	// (replay.MissError, the default, or replay.MissPassthrough) saying
	// what a call without a recording gets.
	Record     string
	Replay     string
	ReplayMiss string
	// Deterministic draws every request's ids, generated keys and created
	// timestamps from a seeded sequence (engine.Deterministic), so the same
	// sequence of requests gets byte-identical answers.
	Deterministic bool
}

// buildTestkit puts the test-suite layers around the provider transport
// and hands the server its LB-Fault reader: the recorder or replayer
// innermost, faults outside them so an injected fault is never recorded.
// Fault injection keeps no state of its own (see fault.Transport), so it
// behaves the same on each node of a cluster; the recorder and replayer
// count repeated requests per node (see replay.sequence). Deterministic
// mode counts requests in this process's memory, so it is refused on a
// shared store: two nodes would hand out the same ids.
func (a *App) buildTestkit(cfg *Config) error {
	tk := cfg.Testkit
	if tk.Deterministic {
		if a.Cluster.Shared() {
			return errors.New("deterministic mode (HEARTH_DETERMINISTIC) and cluster mode (HEARTH_DATABASE_URL): deterministic ids are for a single node; use one or the other")
		}
		cfg.HTTP.IDs = engine.NewDeterministic(0).Scope
		a.note("testkit: deterministic ids and timestamps")
	}
	switch {
	case tk.Replay != "":
		cfg.Providers.Wrap = append(cfg.Providers.Wrap, func(base http.RoundTripper) http.RoundTripper {
			return &replay.Replayer{Base: base, Dir: tk.Replay, Miss: tk.ReplayMiss}
		})
		a.note("testkit: replay")
	case tk.Record != "":
		cfg.Providers.Wrap = append(cfg.Providers.Wrap, func(base http.RoundTripper) http.RoundTripper {
			return &replay.Recorder{Base: base, Dir: tk.Record}
		})
		a.note("testkit: record")
	}
	if !tk.Faults {
		return nil
	}
	cfg.Providers.Wrap = append(cfg.Providers.Wrap, fault.Wrap(tk.FaultRules))
	cfg.HTTP.Faults = func(ctx context.Context, v string) (context.Context, error) {
		rules, err := fault.Parse(v)
		if err != nil {
			return ctx, err
		}
		if fault.SlowCommit(rules) > 0 {
			return ctx, errors.New("slow-commit=D holds the commits of the whole server: set it in HEARTH_FAULTS, not in the header")
		}
		return fault.WithRequest(ctx, rules), nil
	}
	a.note("testkit: fault injection")
	return nil
}
