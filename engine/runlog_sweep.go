package engine

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// runContentSweepLock is the cluster lock held by the node that deletes
// expired run content.
const runContentSweepLock = "runlog.content.sweep"

// runContentSweepBatch bounds the deletions of one transaction.
const runContentSweepBatch = 500

// SweepContent deletes the run content whose retention ended, under the
// cluster lock runlog.content.sweep so that one node at a time does it
// (ran is false when another node holds it and the round is skipped). The
// expiry index orders content by expiry, so a sweep reads only what it
// deletes.
func (l *RunLog) SweepContent(ctx context.Context, cluster Cluster) (deleted int, ran bool, err error) {
	release, ok, err := cluster.TryLock(ctx, runContentSweepLock)
	if err != nil || !ok {
		return 0, false, err
	}
	defer release()
	limit := runContentExpKey(l.clock(), "", "")
	for {
		var keys []string
		err := l.store.View(ctx, func(tx Tx) error {
			return tx.Scan(prefixRunContentExp, "", func(k string, _ []byte) error {
				if k >= limit || len(keys) == runContentSweepBatch {
					return ErrStopScan
				}
				keys = append(keys, k)
				return nil
			})
		})
		if err != nil || len(keys) == 0 {
			return deleted, true, err
		}
		del := make([]string, 0, 2*len(keys))
		for _, k := range keys {
			// k is runcontentexp/<ns>/<owner>/<id>.
			parts := strings.SplitN(strings.TrimPrefix(k, prefixRunContentExp), "/", 3)
			if len(parts) != 3 {
				return deleted, true, fmt.Errorf("runlog: malformed content expiry key %q", k)
			}
			del = append(del, prefixRunContent+parts[1]+"/"+parts[2], k)
		}
		if err := deleteKeys(ctx, l.store, del); err != nil {
			return deleted, true, err
		}
		deleted += len(keys)
	}
}

// RunContentSweeps sweeps expired run content every interval until ctx
// ends, logging failures; with Budgets as the meter it also deletes spend
// counters past their retention once a day (Budgets.SweepSpendDue). Every node runs it; the cluster lock makes one
// of them do the work each round.
func (l *RunLog) RunContentSweeps(ctx context.Context, cluster Cluster, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, _, err := l.SweepContent(ctx, cluster); err != nil && ctx.Err() == nil {
			l.log.Error("cannot sweep expired run content", "err", err)
		}
		if sw, ok := l.meter.(spendSweeper); ok {
			if _, err := sw.SweepSpendDue(ctx, cluster); err != nil && ctx.Err() == nil {
				l.log.Error("cannot sweep old spend counters", "err", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// spendSweeper is a meter whose counters age out (Budgets); the content
// sweep loop also drives its daily sweep, so it stops with the run log.
type spendSweeper interface {
	SweepSpendDue(ctx context.Context, cluster Cluster) (int, error)
}

// RunContentSweepInterval is how often each node tries to sweep expired
// run content.
const RunContentSweepInterval = 10 * time.Minute

// StartContentSweeps runs RunContentSweeps in the background until Close.
// cluster nil means engine.Local (one process).
func (l *RunLog) StartContentSweeps(cluster Cluster, interval time.Duration) {
	if cluster == nil {
		cluster = &Local{}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	l.sweepStop = func() { cancel(); <-done }
	go func() {
		defer close(done)
		l.RunContentSweeps(ctx, cluster, interval)
	}()
}
