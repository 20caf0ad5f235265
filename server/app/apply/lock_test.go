package apply_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/server/app/apply"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestLockedWaits: Locked runs fn holding the apply lock, and while
// another holder has it, waits until its context ends without running fn.
func TestLockedWaits(t *testing.T) {
	var c engine.Local
	ctx := context.Background()
	err := apply.Locked(ctx, &c, func(context.Context) error {
		if _, ok, _ := c.TryLock(ctx, apply.LockName); ok {
			t.Error("fn ran without the apply lock held")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	release, ok, _ := c.TryLock(ctx, apply.LockName)
	if !ok {
		t.Fatal("Locked kept the lock after fn returned")
	}
	short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	ran := false
	err = apply.Locked(short, &c, func(context.Context) error { ran = true; return nil })
	if ran || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), `cluster lock "apply"`) {
		t.Fatalf("held lock: ran %v, err %v", ran, err)
	}
	release()
}

// TestApplyTwoNodesAtOnce: two nodes on one PostgreSQL database apply the
// same declarations at the same moment, as nodes started together with
// HEARTH_APPLY_DIR do. They take turns under the cluster lock: one plan
// makes every change, the other finds nothing to do, and neither fails.
func TestApplyTwoNodesAtOnce(t *testing.T) {
	nodes := servertest.StartCluster(t, 2)
	dir := copyDecl(t)
	spec, err := apply.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	plans := make([]*apply.Plan, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, n := range nodes {
		other := nodes[1-i].App.Cluster
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = apply.Locked(ctx, n.App.Cluster, func(ctx context.Context) error {
				if release, ok, _ := other.TryLock(ctx, apply.LockName); ok {
					release()
					return errors.New("the other node could take the apply lock while this one applied")
				}
				svc := apply.ServicesOf(n.App, func(k string) string { return env[k] })
				plan, err := apply.Build(ctx, svc, spec, apply.Options{})
				if err != nil {
					return err
				}
				plans[i] = plan
				return plan.Apply(ctx)
			})
		}()
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("node %d: %v", i, err)
		}
	}
	a, b := len(plans[0].Changes), len(plans[1].Changes)
	if min(a, b) != 0 || max(a, b) != 11 {
		t.Fatalf("changes per node: %d and %d (want 11 and 0): %v / %v", a, b, actions(plans[0]), actions(plans[1]))
	}
	pipes, err := nodes[1].App.Deps.Pipes.List(ctx, "alice")
	if err != nil || len(pipes) != 1 {
		t.Fatalf("alice's pipes on node 1: %d %v", len(pipes), err)
	}
}
