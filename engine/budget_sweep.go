package engine

import (
	"context"
	"strings"
	"time"
)

// SpendRetention is how long a spend counter is kept after its period
// ended (docs/accounts-and-keys.md#budgets): long enough to show last month's use beside
// this month's, then it is deleted so counters do not pile up forever.
const SpendRetention = 62 * 24 * time.Hour

// budgetSpendSweepLock is the cluster lock held by the node that deletes
// old spend counters.
const budgetSpendSweepLock = "budget.spend.sweep"

// spendSweepBatch bounds the deletions of one transaction.
const spendSweepBatch = 500

// SweepSpend deletes the spend counters of periods that ended more than
// SpendRetention ago, under the cluster lock budget.spend.sweep so that
// one node at a time does it (ran is false when another node holds it).
// A key whose period code it cannot read is left alone.
func (b *Budgets) SweepSpend(ctx context.Context, cluster Cluster) (deleted int, ran bool, err error) {
	release, ok, err := cluster.TryLock(ctx, budgetSpendSweepLock)
	if err != nil || !ok {
		return 0, false, err
	}
	defer release()
	cutoff := b.now().UTC().Add(-SpendRetention)
	after := ""
	for {
		var keys []string
		last := ""
		err := b.store.View(ctx, func(tx Tx) error {
			n := 0
			return tx.Scan(prefixSpend, after, func(k string, _ []byte) error {
				if n == spendSweepBatch {
					return ErrStopScan
				}
				n++
				last = k
				if end, ok := spendPeriodEnd(k); ok && !end.After(cutoff) {
					keys = append(keys, k)
				}
				return nil
			})
		})
		if err != nil {
			return deleted, true, err
		}
		if len(keys) > 0 {
			if err := deleteKeys(ctx, b.store, keys); err != nil {
				return deleted, true, err
			}
			deleted += len(keys)
		}
		if last == "" || last == after {
			return deleted, true, nil
		}
		after = last
	}
}

// deleteKeys deletes keys in one transaction of store; a key already gone
// (deleted by another node's sweep) is no error.
func deleteKeys(ctx context.Context, store Store, keys []string) error {
	return store.Update(ctx, func(tx Tx) error {
		for _, k := range keys {
			if err := tx.Delete(k); err != nil && !IsNotFound(err) {
				return err
			}
		}
		return nil
	})
}

// spendPeriodEnd reads the end of the period of a counter key
// spend/<owner>/<subject>/<code> (code d2006-01-02 or m2006-01).
func spendPeriodEnd(key string) (time.Time, bool) {
	code := key[strings.LastIndexByte(key, '/')+1:]
	if len(code) < 2 {
		return time.Time{}, false
	}
	switch code[0] {
	case 'd':
		t, err := time.Parse("2006-01-02", code[1:])
		return t.AddDate(0, 0, 1), err == nil
	case 'm':
		t, err := time.Parse("2006-01", code[1:])
		return t.AddDate(0, 1, 0), err == nil
	}
	return time.Time{}, false
}

// SweepSpendDue runs SweepSpend when this process has not swept yet on
// the current UTC day: counters only age past SpendRetention once a day,
// so more often would rescan them for nothing. The day swept is kept in
// this process's memory; with several nodes on one database each node
// tries once a day, the cluster lock serialises them, and a node that
// comes second finds nothing left to delete. A round skipped because
// another node held the lock is tried again next time.
func (b *Budgets) SweepSpendDue(ctx context.Context, cluster Cluster) (int, error) {
	day := b.now().UTC().Format("2006-01-02")
	if v, _ := b.swept.Load().(string); v == day {
		return 0, nil
	}
	n, ran, err := b.SweepSpend(ctx, cluster)
	if err == nil && ran {
		b.swept.Store(day)
	}
	return n, err
}
