package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
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
// any work (docs/accounts-and-keys.md#budgets). It reads the owner's budgets and their
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
	_, _, day := periodOf(PeriodDay, now)
	_, _, month := periodOf(PeriodMonth, now)
	// One sum per (owner, subject) of the batch, then one counter update
	// per sum and period: a batch of one owner's runs through one key
	// reads and writes four counters, however many runs it holds.
	var sums []meterSum
	for i := range batch {
		r := &batch[i]
		tokens := int64(r.TotalTokens)
		if tokens == 0 {
			tokens = int64(r.PromptTokens + r.CompletionTokens)
		}
		var nanos int64
		if r.CostUSD != nil {
			nanos = int64(math.Round(*r.CostUSD * nanosPerUSD))
		}
		sums = addMeter(sums, r.Owner, subjectOwner, tokens, nanos)
		if r.KeyID != "" {
			sums = addMeter(sums, r.Owner, r.KeyID, tokens, nanos)
		}
	}
	counters := make([]meterCounter, 0, 2*len(sums))
	for _, m := range sums {
		counters = append(counters, meterCounter{spendKey(m.owner, m.subject, day), m.add},
			meterCounter{spendKey(m.owner, m.subject, month), m.add})
	}
	slices.SortFunc(counters, func(a, b meterCounter) int { return strings.Compare(a.key, b.key) }) // one lock order for every writer
	// Every counter is read at once (one round trip on PostgreSQL), then
	// written back.
	keys := make([]string, len(counters))
	for i, c := range counters {
		keys[i] = c.key
	}
	vals, err := GetRawMany(tx, keys)
	if err != nil {
		return err
	}
	var s Spend
	for i, c := range counters {
		s = Spend{}
		if vals[i] != nil {
			if err := json.Unmarshal(vals[i], &s); err != nil {
				return fmt.Errorf("decode %s: %w", c.key, err)
			}
		}
		s.Tokens += c.add.Tokens
		s.NanoUSD += c.add.NanoUSD
		s.Requests += c.add.Requests
		if err := tx.Put(c.key, &s); err != nil {
			return err
		}
	}
	return nil
}

// meterSum is what a batch adds to one subject's counters.
type meterSum struct {
	owner, subject string
	add            Spend
}

// meterCounter is what a batch adds to one counter.
type meterCounter struct {
	key string
	add Spend
}

// addMeter adds one run to the sum of (owner, subject), found by a linear
// search: a batch holds few distinct owners and keys.
func addMeter(sums []meterSum, owner, subject string, tokens, nanos int64) []meterSum {
	for i := range sums {
		if m := &sums[i]; m.owner == owner && m.subject == subject {
			m.add.Tokens += tokens
			m.add.NanoUSD += nanos
			m.add.Requests++
			return sums
		}
	}
	return append(sums, meterSum{owner: owner, subject: subject, add: Spend{Tokens: tokens, NanoUSD: nanos, Requests: 1}})
}

// KeyIDOf returns the key id of the request's principal ("" when ctx
// carries none; see WithPrincipal).
func KeyIDOf(ctx context.Context) string { return authorOf(ctx) }
