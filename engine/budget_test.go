package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
)

// budgetEnv is a budget service over an in-memory store with one user
// ("ann", two keys) and a clock the test moves.
type budgetEnv struct {
	store   *blob.Store
	budgets *engine.Budgets
	acc     *engine.Accounts
	clock   atomic.Int64
	ann     *engine.Principal
	annB    *engine.Principal
}

func newBudgetEnv(t *testing.T, start time.Time) *budgetEnv {
	t.Helper()
	acc, store := newAccounts(t)
	e := &budgetEnv{store: store, budgets: engine.NewBudgets(store), acc: acc}
	e.clock.Store(start.UnixNano())
	e.budgets.SetClock(func() time.Time { return time.Unix(0, e.clock.Load()).UTC() })
	ctx := context.Background()
	if _, err := acc.CreateUser(ctx, "ann"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []**engine.Principal{&e.ann, &e.annB} {
		k, _, err := acc.CreateKey(ctx, "ann", "k")
		if err != nil {
			t.Fatal(err)
		}
		*p = &engine.Principal{KeyID: k.ID, Kind: engine.KeyUser, Owner: "ann"}
	}
	return e
}

func (e *budgetEnv) set(t *testing.T, by *engine.Principal, in engine.BudgetInput) *engine.BudgetStatus {
	t.Helper()
	st, err := e.budgets.Set(context.Background(), by, in)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// spend meters one run of ann's made with key, as the run log does.
func (e *budgetEnv) spend(t *testing.T, key string, tokens int, usd *float64) {
	t.Helper()
	rec := engine.RunRecord{Owner: "ann", KeyID: key, TotalTokens: tokens, CostUSD: usd}
	if err := e.store.Update(context.Background(), func(tx engine.Tx) error {
		return e.budgets.MeterTx(tx, []engine.RunRecord{rec})
	}); err != nil {
		t.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }

// refusedUntil asserts a 429 naming the budget and its reset time.
func refusedUntil(t *testing.T, err error, id string, reset time.Time, retry int) {
	t.Helper()
	var ee *engine.Error
	var ex *engine.BudgetExceeded
	if !errors.As(err, &ee) || ee.Code != engine.CodeRateLimited || !errors.As(err, &ex) {
		t.Fatalf("err %v, want a RATE_LIMITED budget refusal", err)
	}
	if ex.Status.ID != id || !ex.Status.ResetsAt.Equal(reset) || ee.RetryAfter != retry ||
		!strings.Contains(ee.Message, id) || !strings.Contains(ee.Message, reset.Format(time.RFC3339)) {
		t.Fatalf("refusal %q (retry %d, budget %s resets %s), want budget %s resetting %s in %d s",
			ee.Message, ee.RetryAfter, ex.Status.ID, ex.Status.ResetsAt, id, reset, retry)
	}
}

func TestBudgetMonthTokensBlockAndReset(t *testing.T) {
	mid := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	e := newBudgetEnv(t, mid)
	ctx := context.Background()
	st := e.set(t, e.ann, engine.BudgetInput{Period: engine.PeriodMonth, LimitTokens: ptr[int64](30)})
	if st.ID != "bgt_month_owner" || st.UsedTokens != 0 || !st.ResetsAt.Equal(time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)) ||
		!st.PeriodStart.Equal(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("created %+v", st)
	}
	e.spend(t, e.ann.KeyID, 17, nil)
	if err := e.budgets.Check(ctx, "ann", e.ann.KeyID); err != nil {
		t.Fatalf("17 of 30 tokens used: %v", err)
	}
	e.spend(t, e.annB.KeyID, 17, nil) // the owner's budget counts every key
	reset := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	refusedUntil(t, e.budgets.Check(ctx, "ann", e.ann.KeyID), "bgt_month_owner", reset, int(reset.Sub(mid).Seconds()))
	if err := e.budgets.Check(ctx, "bob", ""); err != nil {
		t.Fatalf("another owner is not limited: %v", err)
	}
	list, err := e.budgets.List(ctx, "ann")
	if err != nil || len(list) != 1 || list[0].UsedTokens != 34 {
		t.Fatalf("list %+v %v", list, err)
	}
	e.clock.Store(reset.Add(-time.Second).UnixNano())
	refusedUntil(t, e.budgets.Check(ctx, "ann", e.ann.KeyID), "bgt_month_owner", reset, 1)
	e.clock.Store(reset.UnixNano())
	if err := e.budgets.Check(ctx, "ann", e.ann.KeyID); err != nil {
		t.Fatalf("a new month: %v", err)
	}
}

func TestBudgetDayDollarsPerKey(t *testing.T) {
	e := newBudgetEnv(t, time.Date(2026, 3, 15, 23, 0, 0, 0, time.UTC))
	ctx := context.Background()
	st := e.set(t, e.ann, engine.BudgetInput{KeyID: e.annB.KeyID, Period: engine.PeriodDay, LimitUSD: ptr(0.01)})
	id := "bgt_day_" + e.annB.KeyID
	if st.ID != id || st.KeyID != e.annB.KeyID {
		t.Fatalf("created %+v", st)
	}
	e.spend(t, e.annB.KeyID, 10, ptr(0.006))
	e.spend(t, e.ann.KeyID, 10, ptr(0.5)) // another key's spend is not this key's
	if err := e.budgets.Check(ctx, "ann", e.annB.KeyID); err != nil {
		t.Fatalf("$0.006 of $0.01: %v", err)
	}
	e.spend(t, e.annB.KeyID, 10, ptr(0.004))
	refusedUntil(t, e.budgets.Check(ctx, "ann", e.annB.KeyID), id, time.Date(2026, 3, 16, 0, 0, 0, 0, time.UTC), 3600)
	if err := e.budgets.Check(ctx, "ann", e.ann.KeyID); err != nil {
		t.Fatalf("the other key of the owner is not limited: %v", err)
	}
	e.clock.Store(time.Date(2026, 3, 16, 0, 0, 1, 0, time.UTC).UnixNano())
	if err := e.budgets.Check(ctx, "ann", e.annB.KeyID); err != nil {
		t.Fatalf("a new day: %v", err)
	}
	list, _ := e.budgets.List(ctx, "ann")
	if len(list) != 1 || list[0].UsedUSD != 0 {
		t.Fatalf("the new day starts at zero: %+v", list)
	}
}

func TestBudgetValidation(t *testing.T) {
	e := newBudgetEnv(t, time.Now())
	cases := []struct {
		in    engine.BudgetInput
		field string
	}{
		{engine.BudgetInput{Period: "week", LimitTokens: ptr[int64](1)}, "period"},
		{engine.BudgetInput{Period: "day"}, "limit_usd"},
		{engine.BudgetInput{Period: "day", LimitUSD: ptr(-1.0)}, "limit_usd"},
		{engine.BudgetInput{Period: "day", LimitUSD: ptr(0.0)}, "limit_usd"},
		{engine.BudgetInput{Period: "month", LimitTokens: ptr[int64](0)}, "limit_tokens"},
		{engine.BudgetInput{Period: "month", LimitTokens: ptr[int64](5), KeyID: "nope"}, "key_id"},
		{engine.BudgetInput{Period: "month", LimitTokens: ptr[int64](5), KeyID: "key_missing"}, "key_id"},
	}
	for _, c := range cases {
		_, err := e.budgets.Set(context.Background(), e.ann, c.in)
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Code != engine.CodeBadRequest || ee.Field != c.field || !strings.HasPrefix(ee.Message, c.field+":") {
			t.Errorf("%+v: %v, want a BAD_REQUEST naming %s", c.in, err, c.field)
		}
	}
}

func TestBudgetWhoMaySet(t *testing.T) {
	e := newBudgetEnv(t, time.Now())
	ctx := context.Background()
	in := engine.BudgetInput{KeyID: e.ann.KeyID, Period: engine.PeriodDay, LimitTokens: ptr[int64](100)}
	forbidden := func(err error, field string) {
		t.Helper()
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Code != engine.CodeForbidden || ee.Field != field {
			t.Fatalf("err %v, want FORBIDDEN naming %q", err, field)
		}
	}
	scoped := &engine.Principal{KeyID: "key_s", Kind: engine.KeyUser, Owner: "ann", Scope: &engine.Scope{Pipes: []string{"p"}}}
	_, err := e.budgets.Set(ctx, scoped, in)
	forbidden(err, "scope")
	_, err = e.budgets.Set(ctx, &engine.Principal{KeyID: "key_p", Kind: engine.KeyPipe, Owner: "ann"}, in)
	forbidden(err, "scope")
	// A key may put a budget on itself and lower it, never raise it.
	e.set(t, e.ann, in)
	e.set(t, e.ann, engine.BudgetInput{KeyID: e.ann.KeyID, Period: engine.PeriodDay, LimitTokens: ptr[int64](50)})
	for _, up := range []engine.BudgetInput{
		{KeyID: e.ann.KeyID, Period: engine.PeriodDay, LimitTokens: ptr[int64](51)},
		{KeyID: e.ann.KeyID, Period: engine.PeriodDay, LimitUSD: ptr(1.0)}, // the token limit removed
	} {
		_, err = e.budgets.Set(ctx, e.ann, up)
		forbidden(err, "key_id")
	}
	forbidden(e.budgets.Delete(ctx, e.ann, "bgt_day_"+e.ann.KeyID), "key_id")
	forbidden(e.budgets.Delete(ctx, scoped, "bgt_day_"+e.ann.KeyID), "scope")
	// Another unscoped key of the owner may.
	if st := e.set(t, e.annB, in); *st.LimitTokens != 100 || st.SetBy != e.annB.KeyID {
		t.Fatalf("raised by another key: %+v", st)
	}
	if err := e.budgets.Delete(ctx, e.annB, "bgt_day_"+e.ann.KeyID); err != nil {
		t.Fatal(err)
	}
	if err := e.budgets.Delete(ctx, e.annB, "bgt_day_"+e.ann.KeyID); !engine.IsNotFound(err) {
		t.Fatalf("deleted twice: %v", err)
	}
	// Another owner's key cannot be budgeted, nor its budgets deleted.
	if _, err := e.acc.CreateUser(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	bobKey, _, _ := e.acc.CreateKey(ctx, "bob", "k")
	if _, err := e.budgets.Set(ctx, e.ann, engine.BudgetInput{KeyID: bobKey.ID, Period: "day", LimitUSD: ptr(1.0)}); engine.ErrorCode(err) != engine.CodeBadRequest {
		t.Fatalf("another owner's key: %v", err)
	}
	e.set(t, e.ann, engine.BudgetInput{Period: engine.PeriodMonth, LimitUSD: ptr(5.0)})
	bob := &engine.Principal{KeyID: bobKey.ID, Kind: engine.KeyUser, Owner: "bob"}
	if err := e.budgets.Delete(ctx, bob, "bgt_month_owner"); !engine.IsNotFound(err) {
		t.Fatalf("bob deleted ann's budget: %v", err)
	}
}

// TestBudgetRunLogMeters: every record the run log writes counts, in the
// same transaction, for the owner and the key that made the run.
func TestBudgetRunLogMeters(t *testing.T) {
	e := newBudgetEnv(t, time.Now())
	l := engine.NewRunLog(e.store, nil, nil)
	l.SetMeter(e.budgets)
	t.Cleanup(func() { l.Close() })
	e.set(t, e.annB, engine.BudgetInput{KeyID: e.ann.KeyID, Period: engine.PeriodMonth, LimitTokens: ptr[int64](1000)})
	e.set(t, e.annB, engine.BudgetInput{Period: engine.PeriodDay, LimitTokens: ptr[int64](1000)})
	for i := range 300 { // more than one batch
		l.Record(engine.RunRecord{ID: fmt.Sprintf("run%04d", i),
			Owner: "ann", KeyID: e.ann.KeyID, PromptTokens: 2, CompletionTokens: 1, TotalTokens: 3, Status: engine.RunSuccess})
	}
	l.Flush()
	list, err := e.budgets.List(context.Background(), "ann")
	if err != nil || len(list) != 2 {
		t.Fatal(list, err)
	}
	for _, st := range list {
		if st.UsedTokens != 900 {
			t.Fatalf("%s used %d tokens, want 900", st.ID, st.UsedTokens)
		}
	}
	if err := e.budgets.Check(context.Background(), "ann", e.ann.KeyID); err != nil {
		t.Fatalf("900 of 1000 tokens: %v", err)
	}
	l.Record(engine.RunRecord{ID: "last", Owner: "ann", KeyID: e.ann.KeyID, TotalTokens: 100, Status: engine.RunSuccess})
	l.Flush()
	if err := e.budgets.Check(context.Background(), "ann", e.ann.KeyID); engine.ErrorCode(err) != engine.CodeRateLimited {
		t.Fatalf("1000 of 1000 tokens: %v", err)
	}
}
