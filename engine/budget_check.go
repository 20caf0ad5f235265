package engine

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"
)

// BudgetExceeded is the cause of the RATE_LIMITED error Check returns: the
// budget that refused and when it resets. The server reads it to set the
// lb-budget-reset header.
type BudgetExceeded struct {
	Status BudgetStatus
}

func (e *BudgetExceeded) Error() string { return "budget " + e.Status.ID + " reached" }

// Check refuses, with RATE_LIMITED (429), work for owner through keyID
// when a budget of the owner or of that key is used up in the current
// period. It is the one check every spending path calls before it does
// any work (README "Budgets"). It reads the owner's budgets and their
// counters from the store in one read transaction, so every node sees the
// spend all nodes recorded. A nil *Budgets allows everything.
func (b *Budgets) Check(ctx context.Context, owner, keyID string) error {
	if b == nil {
		return nil
	}
	none, cached, ok, gen := b.cachedNone(ctx, owner, keyID)
	if none {
		return nil
	}
	now := b.now()
	var worst *BudgetStatus
	err := b.store.View(ctx, func(tx Tx) error {
		budgets, err := b.budgetsOf(tx, owner, cached, ok, gen)
		if err != nil {
			return err
		}
		for _, bg := range budgets {
			if bg.KeyID != "" && bg.KeyID != keyID {
				continue
			}
			st, err := statusOf(tx, bg, now)
			if err != nil {
				return err
			}
			if st.reached() && (worst == nil || st.ResetsAt.After(worst.ResetsAt)) {
				worst = &st
			}
		}
		return nil
	})
	if err != nil || worst == nil {
		return err
	}
	return worst.refusal(now)
}

// reached reports whether a limit of the budget is used up.
func (st *BudgetStatus) reached() bool {
	if st.LimitTokens != nil && st.UsedTokens >= *st.LimitTokens {
		return true
	}
	return st.LimitUSD != nil && st.UsedUSD >= *st.LimitUSD
}

// refusal is the 429 of a reached budget: it names the budget, its limit
// and use, and when it resets (also as Retry-After, in seconds).
func (st *BudgetStatus) refusal(now time.Time) error {
	var limit, used string
	switch {
	case st.LimitTokens != nil && st.UsedTokens >= *st.LimitTokens:
		limit = strconv.FormatInt(*st.LimitTokens, 10) + " tokens"
		used = strconv.FormatInt(st.UsedTokens, 10) + " tokens"
	default:
		limit, used = usd(*st.LimitUSD), usd(st.UsedUSD)
	}
	retry := int(math.Ceil(st.ResetsAt.Sub(now).Seconds()))
	return &Error{Code: CodeRateLimited, RetryAfter: max(retry, 1),
		Message: fmt.Sprintf("budget exceeded: %s (%s, id %s) is used up: %s used this %s; it resets at %s",
			st.describe(), limit, st.ID, used, st.Period, st.ResetsAt.UTC().Format(time.RFC3339)),
		Err: &BudgetExceeded{Status: *st}}
}

// usd renders a dollar amount with as many decimals as it needs.
func usd(v float64) string { return "$" + strconv.FormatFloat(v, 'f', -1, 64) }

// MeterTx adds a batch of run records to the spend counters of their
// owners and keys, for the current day and month, inside the run log's
// transaction (RunLog.SetMeter): every recorded run counts, whatever
// path recorded it. Tokens are the record's total; dollars its list-price
// cost (a model with no listed price counts tokens only). A run counts in
// the period in which it is recorded.
func (b *Budgets) MeterTx(tx Tx, batch []RunRecord) error {
	now := b.now()
	sums := map[string]Spend{}
	for _, r := range batch {
		tokens := int64(r.TotalTokens)
		if tokens == 0 {
			tokens = int64(r.PromptTokens + r.CompletionTokens)
		}
		var nanos int64
		if r.CostUSD != nil {
			nanos = int64(math.Round(*r.CostUSD * nanosPerUSD))
		}
		subjects := []string{subjectOwner}
		if r.KeyID != "" {
			subjects = append(subjects, r.KeyID)
		}
		for _, subj := range subjects {
			for _, period := range []string{PeriodDay, PeriodMonth} {
				_, _, code := periodOf(period, now)
				k := spendKey(r.Owner, subj, code)
				s := sums[k]
				s.Tokens += tokens
				s.NanoUSD += nanos
				s.Requests++
				sums[k] = s
			}
		}
	}
	keys := make([]string, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	sort.Strings(keys) // one lock order for every writer
	for _, k := range keys {
		s, err := getSpend(tx, k)
		if err != nil {
			return err
		}
		add := sums[k]
		s.Tokens += add.Tokens
		s.NanoUSD += add.NanoUSD
		s.Requests += add.Requests
		if err := tx.Put(k, s); err != nil {
			return err
		}
	}
	return nil
}

// KeyIDOf returns the key id of the request's principal ("" when ctx
// carries none; see WithPrincipal).
func KeyIDOf(ctx context.Context) string { return authorOf(ctx) }
