package engine

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"sync/atomic"
	"time"
)

// Budgets keeps spending limits per owner and per API key, in dollars at list
// prices and in tokens, per UTC calendar day or month
// (docs/accounts-and-keys.md#budgets). Spend is counted by the run log
// (MeterTx, in the transaction that writes the run records) and read by Check
// before a run starts.
//
// Everything lives in the store: budgets, and one counter per (subject,
// period) where the subject is the owner or one of its keys. Several
// Hearth nodes sharing one database therefore count into the same
// counters and see each other's spend as soon as it is written; nothing is
// cached in a node's memory. Spend is kept for every owner and key,
// budgets or not, so a budget set mid-period starts from the true use.
//
// Key schema:
//
//	budget/<owner>/<budget id>            Budget (id: bgt_<period>_<subject>)
//	spend/<owner>/<subject>/<period code> Spend (subject: "owner" or a key id;
//	                                      code: d2006-01-02 or m2006-01)
type Budgets struct {
	store Store
	// clock picks the current period; atomic because a test may set it
	// while the sweep loop reads it.
	clock atomic.Pointer[func() time.Time]
	// swept is the UTC day this process last swept old counters
	// (budget_sweep.go).
	swept atomic.Value
	// cluster and lists: see UseCluster (budget_cache.go).
	cluster Cluster
	lists   *gateCache[[]Budget]
}

// Budget periods: UTC calendar days and months.
const (
	PeriodDay   = "day"
	PeriodMonth = "month"
)

const (
	prefixBudget = "budget/"
	prefixSpend  = "spend/"
	// subjectOwner is the counter subject of an owner's own budgets.
	subjectOwner = "owner"
	// nanosPerUSD converts list-price dollars to the integer nano-dollars
	// the counters hold: a single cheap call costs a fraction of a
	// micro-dollar, so micro-dollars would round most runs to 0 or 1.
	nanosPerUSD = 1e9
)

// Budget is a spending limit on an owner (KeyID empty) or one of its keys
// for a period. At least one of LimitUSD and LimitTokens is set; a run is
// refused once either is reached.
type Budget struct {
	ID          string    `json:"id"`
	Owner       string    `json:"owner_login"`
	KeyID       string    `json:"key_id,omitempty"`
	Period      string    `json:"period"`
	LimitUSD    *float64  `json:"limit_usd,omitempty"`
	LimitTokens *int64    `json:"limit_tokens,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	// SetBy is the id of the key that last set the budget.
	SetBy string `json:"set_by,omitempty"`
}

// Spend is one counter: what a subject spent in one period.
type Spend struct {
	Tokens   int64 `json:"tokens"`
	NanoUSD  int64 `json:"nano_usd"`
	Requests int64 `json:"requests"`
}

// BudgetStatus is a budget with its use in the current period.
type BudgetStatus struct {
	Budget
	UsedUSD     float64   `json:"used_usd"`
	UsedTokens  int64     `json:"used_tokens"`
	PeriodStart time.Time `json:"period_start"`
	ResetsAt    time.Time `json:"resets_at"`
}

// BudgetInput is the body of a budget create or replace.
type BudgetInput struct {
	KeyID       string   `json:"key_id,omitempty"`
	Period      string   `json:"period"`
	LimitUSD    *float64 `json:"limit_usd,omitempty"`
	LimitTokens *int64   `json:"limit_tokens,omitempty"`
}

// NewBudgets returns the budget service over store.
func NewBudgets(store Store) *Budgets {
	b := &Budgets{store: store}
	b.SetClock(time.Now)
	return b
}

// SetClock replaces the clock that picks the current period (time.Now by
// default); tests use it to cross a day or month boundary.
func (b *Budgets) SetClock(now func() time.Time) { b.clock.Store(&now) }

func (b *Budgets) now() time.Time { return (*b.clock.Load())() }

// Validate checks a budget input and names the field at fault.
func (in *BudgetInput) Validate() error {
	if in.Period != PeriodDay && in.Period != PeriodMonth {
		return FieldError("period", `must be "day" or "month", got %q`, in.Period)
	}
	if in.LimitUSD == nil && in.LimitTokens == nil {
		return FieldError("limit_usd", "a budget needs a limit: set limit_usd, limit_tokens or both")
	}
	if in.LimitUSD != nil && (math.IsNaN(*in.LimitUSD) || math.IsInf(*in.LimitUSD, 0) || *in.LimitUSD <= 0 || *in.LimitUSD > 1e9) {
		return FieldError("limit_usd", "must be a dollar amount above 0 and at most 1000000000, got %v", *in.LimitUSD)
	}
	if in.LimitTokens != nil && *in.LimitTokens <= 0 {
		return FieldError("limit_tokens", "must be a whole number of tokens above 0, got %d", *in.LimitTokens)
	}
	if in.KeyID != "" && !strings.HasPrefix(in.KeyID, "key_") {
		return FieldError("key_id", "must be the id of one of your keys (key_...), got %q", in.KeyID)
	}
	return nil
}

// budgetID is the id of the one budget of a subject and period, so a
// create for the same key and period replaces it.
func budgetID(keyID, period string) string {
	return "bgt_" + period + "_" + subjectOf(keyID)
}

func subjectOf(keyID string) string {
	if keyID == "" {
		return subjectOwner
	}
	return keyID
}

// periodOf returns the UTC calendar period holding t: its start, its end
// (the reset time) and its counter code.
func periodOf(period string, t time.Time) (start, end time.Time, code string) {
	t = t.UTC()
	if period == PeriodDay {
		start = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		return start, start.AddDate(0, 0, 1), "d" + start.Format("2006-01-02")
	}
	start = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	return start, start.AddDate(0, 1, 0), "m" + start.Format("2006-01")
}

func spendKey(owner, subject, code string) string {
	return prefixSpend + owner + "/" + subject + "/" + code
}

func getSpend(tx Tx, key string) (Spend, error) {
	var s Spend
	err := getSpendInto(tx, key, &s)
	return s, err
}

// getSpendInto reads the counter under key into s (zero when missing).
func getSpendInto(tx Tx, key string, s *Spend) error {
	*s = Spend{}
	err := tx.Get(key, s)
	if IsNotFound(err) {
		*s, err = Spend{}, nil
	}
	return err
}

// List returns an owner's budgets with their use in the current period.
func (b *Budgets) List(ctx context.Context, owner string) ([]BudgetStatus, error) {
	out := []BudgetStatus{}
	now := b.now()
	err := b.store.View(ctx, func(tx Tx) error {
		budgets, err := listBudgets(tx, owner)
		if err != nil {
			return err
		}
		for _, bg := range budgets {
			st, err := statusOf(tx, bg, now)
			if err != nil {
				return err
			}
			out = append(out, st)
		}
		return nil
	})
	return out, err
}

func listBudgets(tx Tx, owner string) ([]Budget, error) {
	var out []Budget
	err := tx.Scan(prefixBudget+owner+"/", "", func(_ string, v []byte) error {
		var bg Budget
		if err := json.Unmarshal(v, &bg); err != nil {
			return err
		}
		out = append(out, bg)
		return nil
	})
	return out, err
}

func statusOf(tx Tx, bg Budget, now time.Time) (BudgetStatus, error) {
	start, end, code := periodOf(bg.Period, now)
	sp, err := getSpend(tx, spendKey(bg.Owner, subjectOf(bg.KeyID), code))
	if err != nil {
		return BudgetStatus{}, err
	}
	return BudgetStatus{Budget: bg, UsedUSD: float64(sp.NanoUSD) / nanosPerUSD, UsedTokens: sp.Tokens,
		PeriodStart: start, ResetsAt: end}, nil
}
