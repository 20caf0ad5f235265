package apply

import (
	"context"
	"fmt"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// LockName is the cluster-wide lock that declarations are applied under.
const LockName = "apply"

// lockRetry is how long Locked waits before it tries a held lock again.
const lockRetry = 200 * time.Millisecond

// Locked runs fn while this node holds the cluster-wide lock LockName,
// waiting for as long as another node holds it (until ctx ends). Several
// nodes that start together with the same HEARTH_APPLY_DIR then apply one
// after the other: the first makes the changes, and the ones after it plan
// against what the first wrote and find nothing left to do. With the
// embedded store (engine.Local) the lock is in-process and always free at
// start. The lock dies with the node that holds it (a PostgreSQL advisory
// lock on its session), so a node killed mid-apply does not block the
// others.
func Locked(ctx context.Context, c engine.Cluster, fn func(context.Context) error) error {
	for {
		release, ok, err := c.TryLock(ctx, LockName)
		if err != nil {
			return fmt.Errorf("taking the cluster lock %q: %w", LockName, err)
		}
		if ok {
			defer release()
			return fn(ctx)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the cluster lock %q, held by another node: %w", LockName, ctx.Err())
		case <-time.After(lockRetry):
		}
	}
}
