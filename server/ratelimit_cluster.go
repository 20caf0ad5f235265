package server

import (
	"context"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// sharedLimit counts requests across every node of a cluster with the
// cluster's window counters (engine.Cluster.Count), in place of the
// in-process token bucket. A bucket of burst tokens refilled at perMinute
// becomes a fixed window of burst/perMinute minutes admitting burst requests:
// the same average rate. Windows are fixed, so at most 2×burst requests pass
// in a short span that straddles a window boundary, and never more than
// burst in any one window, whichever nodes serve them. Each limited request
// costs one database round trip.
type sharedLimit struct {
	cluster engine.Cluster
	prefix  string
	window  time.Duration
	now     func() time.Time
}

// withCluster makes l count in the cluster's shared counters under prefix
// when the cluster is shared; with engine.Local (one process) l keeps its
// in-process buckets, which cost no store access.
func (l *limiter) withCluster(c engine.Cluster, prefix string) *limiter {
	if l == nil || c == nil || !c.Shared() {
		return l
	}
	window := time.Duration(l.burst / l.rate * float64(time.Second))
	l.shared = &sharedLimit{cluster: c, prefix: prefix, window: max(window, time.Second), now: time.Now}
	return l
}

// decide spends one request of key's budget: across the cluster when l is
// shared, in this process otherwise.
func (l *limiter) decide(ctx context.Context, key string, log func(error)) rateDecision {
	if l.shared == nil {
		return l.take(key)
	}
	limit := int(l.burst)
	sh := l.shared
	n, err := sh.cluster.Count(ctx, sh.prefix+key, sh.window, 1)
	now := sh.now()
	reset := now.Truncate(sh.window).Add(sh.window).Sub(now)
	if err != nil {
		// The counter is out of reach: let the request through rather than
		// refuse every client while the database recovers.
		log(err)
		return rateDecision{allowed: true, limit: limit, remaining: limit, reset: reset}
	}
	d := rateDecision{allowed: n <= int64(limit), limit: limit, remaining: max(0, limit-int(n)), reset: reset}
	if !d.allowed {
		d.retry = reset
	}
	return d
}
