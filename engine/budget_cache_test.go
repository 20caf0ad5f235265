package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// TestBudgetCacheInvalidation: with the budget lists served from memory
// (a single node), a budget set after Check had found none refuses the
// very next check, a budget on another key does not apply, and a deleted
// budget stops refusing at once.
func TestBudgetCacheInvalidation(t *testing.T) {
	start := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	e := newBudgetEnv(t, start)
	e.budgets.UseCluster(&engine.Local{})
	ctx := context.Background()
	e.spend(t, e.ann.KeyID, 500, nil)
	for range 2 { // the second check is served from the cached empty list
		if err := e.budgets.Check(ctx, "ann", e.ann.KeyID); err != nil {
			t.Fatalf("no budget yet: %v", err)
		}
	}

	other := e.set(t, e.ann, engine.BudgetInput{KeyID: e.annB.KeyID, Period: engine.PeriodDay, LimitTokens: ptr(int64(100))})
	if err := e.budgets.Check(ctx, "ann", e.ann.KeyID); err != nil {
		t.Fatalf("a budget of another key applied: %v", err)
	}

	st := e.set(t, e.annB, engine.BudgetInput{Period: engine.PeriodDay, LimitTokens: ptr(int64(100))})
	next := time.Date(2026, 3, 11, 0, 0, 0, 0, time.UTC)
	refusedUntil(t, e.budgets.Check(ctx, "ann", e.ann.KeyID), st.ID, next, int(next.Sub(start).Seconds()))

	if err := e.budgets.Delete(ctx, e.annB, st.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.budgets.Check(ctx, "ann", e.ann.KeyID); err != nil {
		t.Fatalf("deleted budget still refuses: %v", err)
	}
	if err := e.budgets.Delete(ctx, e.ann, other.ID); err != nil {
		t.Fatal(err)
	}
	e.set(t, e.ann, engine.BudgetInput{Period: engine.PeriodMonth, LimitTokens: ptr(int64(400))})
	if err := e.budgets.Check(ctx, "ann", e.annB.KeyID); err == nil {
		t.Fatal("a budget set after the cache emptied did not refuse")
	}
}
