package app

import (
	"context"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fault"
)

// slowCommits returns s with every Update held, after its write function
// succeeded and before its transaction commits, for the delay of the
// slow-commit rule among the server-wide fault rules
// (docs/hearth-in-your-tests.md#fault-injection); without one it returns s
// unchanged. It wraps the store under the thread GroupStore, so a batch's
// callers are answered only after the delay and the commit: a change that
// answered before the commit is then caught by any test that kills the server
// right after an answer (TestFaultKill9ThreadGroupCommit). It keeps no state:
// on several nodes each holds its own commits.
func slowCommits(s engine.Store, rules []fault.Rule) engine.Store {
	delay := fault.SlowCommit(rules)
	if delay <= 0 {
		return s
	}
	return &slowCommitStore{Store: s, delay: delay}
}

type slowCommitStore struct {
	engine.Store
	delay time.Duration
}

func (s *slowCommitStore) Update(ctx context.Context, fn func(engine.Tx) error) error {
	return s.Store.Update(ctx, func(tx engine.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		t := time.NewTimer(s.delay)
		defer t.Stop()
		select {
		case <-t.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
}
