package engine_test

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// spendKeys lists the spend counters in the store.
func spendKeys(t *testing.T, e *budgetEnv) []string {
	t.Helper()
	var keys []string
	if err := e.store.View(context.Background(), func(tx engine.Tx) error {
		return tx.Scan("spend/", "", func(k string, _ []byte) error { keys = append(keys, k); return nil })
	}); err != nil {
		t.Fatal(err)
	}
	sort.Strings(keys)
	return keys
}

func (e *budgetEnv) at(t time.Time) { e.clock.Store(t.UnixNano()) }

// TestSweepSpend: counters of periods that ended more than SpendRetention
// (62 days) ago are deleted, younger ones and unreadable keys kept; the
// sweep pages through more counters than one batch; a node that does not
// get the cluster lock skips the round.
func TestSweepSpend(t *testing.T) {
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 12, 0, 0, 0, time.UTC) }
	e := newBudgetEnv(t, day(2025, 10, 10))
	ctx := context.Background()
	for _, at := range []time.Time{day(2025, 10, 10), day(2025, 11, 20), day(2026, 1, 15)} {
		e.at(at)
		e.spend(t, e.ann.KeyID, 10, ptr(0.01))
	}
	// 1200 counters of other subjects whose day ended long ago, and one
	// key the sweep cannot read.
	if err := e.store.Update(ctx, func(tx engine.Tx) error {
		for i := 0; i < 1200; i++ {
			if err := tx.Put(fmt.Sprintf("spend/bob/key_%04d/d2025-09-01", i), engine.Spend{Tokens: 1}); err != nil {
				return err
			}
		}
		return tx.Put("spend/ann/owner/xunknown", engine.Spend{Tokens: 1})
	}); err != nil {
		t.Fatal(err)
	}

	cl := &engine.Local{}
	release, ok, err := cl.TryLock(ctx, "budget.spend.sweep")
	if err != nil || !ok {
		t.Fatal("cannot take the sweep lock", err)
	}
	if n, ran, err := e.budgets.SweepSpend(ctx, cl); err != nil || ran || n != 0 {
		t.Fatalf("sweep under another node's lock: deleted %d, ran %v, err %v; want a skipped round", n, ran, err)
	}
	release()

	// Now 2026-01-15 12:00: the cut is 2025-11-14 12:00. October's day and
	// month ended before it; 20 November's day and November's month after.
	n, ran, err := e.budgets.SweepSpend(ctx, cl)
	if err != nil || !ran {
		t.Fatalf("sweep: ran %v, err %v", ran, err)
	}
	k := e.ann.KeyID
	want := []string{
		"spend/ann/" + k + "/d2025-11-20", "spend/ann/" + k + "/d2026-01-15",
		"spend/ann/" + k + "/m2025-11", "spend/ann/" + k + "/m2026-01",
		"spend/ann/owner/d2025-11-20", "spend/ann/owner/d2026-01-15",
		"spend/ann/owner/m2025-11", "spend/ann/owner/m2026-01", "spend/ann/owner/xunknown",
	}
	sort.Strings(want)
	if got := spendKeys(t, e); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after the sweep:\n%v\nwant\n%v", got, want)
	}
	if n != 1200+4 {
		t.Errorf("deleted %d, want 1204", n)
	}
	// This month's budget still reads its use.
	st := e.set(t, e.ann, engine.BudgetInput{Period: engine.PeriodMonth, LimitTokens: ptr[int64](1000)})
	if st.UsedTokens != 10 {
		t.Errorf("month use %d after the sweep, want 10", st.UsedTokens)
	}
}

// TestSpendSweepWithRunLog: the run log's sweep loop drives the budget
// sweep once per UTC day: a counter aged out later the same day waits for
// the next day.
func TestSpendSweepWithRunLog(t *testing.T) {
	e := newBudgetEnv(t, time.Date(2026, 3, 10, 1, 0, 0, 0, time.UTC))
	ctx := context.Background()
	put := func(key string) {
		if err := e.store.Update(ctx, func(tx engine.Tx) error { return tx.Put(key, engine.Spend{Tokens: 1}) }); err != nil {
			t.Fatal(err)
		}
	}
	put("spend/ann/owner/m2025-12")
	cl := &engine.Local{}
	if n, err := e.budgets.SweepSpendDue(ctx, cl); err != nil || n != 1 {
		t.Fatalf("first sweep of the day deleted %d (err %v), want 1", n, err)
	}
	put("spend/ann/owner/d2025-12-31")
	if n, err := e.budgets.SweepSpendDue(ctx, cl); err != nil || n != 0 {
		t.Fatalf("second sweep the same day deleted %d (err %v), want none", n, err)
	}

	e.at(time.Date(2026, 3, 11, 1, 0, 0, 0, time.UTC))
	log := engine.NewRunLog(e.store, nil, nil)
	log.SetMeter(e.budgets)
	log.StartContentSweeps(cl, 5*time.Millisecond)
	deadline := time.Now().Add(10 * time.Second)
	for len(spendKeys(t, e)) != 0 {
		if time.Now().After(deadline) {
			log.Close()
			t.Fatalf("the run log's sweep loop left %v", spendKeys(t, e))
		}
		time.Sleep(5 * time.Millisecond)
	}
	log.Close()
}
