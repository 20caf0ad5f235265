package server

import (
	"math"
	"sync"
	"time"
)

// limiter is a set of token buckets, one per key (an API key id or a pipe
// id), each refilled at perMinute tokens a minute up to burst. Memory is
// bounded: a bucket that has refilled to full is indistinguishable from a
// fresh one, so sweeps drop it; idle keys therefore cost nothing after at
// most burst/rate. maxBuckets caps the map even under a flood of distinct
// active keys (dropping a bucket only ever loosens that key's limit).
type limiter struct {
	perMinute  int
	burst      float64
	rate       float64 // tokens per second
	maxBuckets int
	now        func() time.Time

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time

	// shared, in cluster mode, counts in the cluster's shared counters
	// instead of the buckets (ratelimit_cluster.go). Without it the buckets
	// are this process's own: with several nodes, each would admit the
	// full rate.
	shared *sharedLimit
	// hdr are the RateLimit-* values that depend on the settings only
	// (ratelimit_headers.go).
	hdr rateHeaders
}

type bucket struct {
	tokens float64
	last   time.Time
}

// rateDecision is the outcome of one take, with what the RateLimit-*
// headers report.
type rateDecision struct {
	allowed   bool
	limit     int           // bucket capacity (RateLimit-Limit)
	remaining int           // whole tokens left (RateLimit-Remaining)
	reset     time.Duration // until the bucket is full again (RateLimit-Reset)
	retry     time.Duration // until one token is available (Retry-After), when refused
}

const sweepEvery = 30 * time.Second

// newLimiter returns nil when perMinute is 0 (the limit is off).
func newLimiter(perMinute, burst int) *limiter {
	if perMinute <= 0 {
		return nil
	}
	if burst <= 0 {
		burst = perMinute
	}
	return &limiter{perMinute: perMinute, burst: float64(burst), rate: float64(perMinute) / 60,
		maxBuckets: 100_000, now: time.Now, buckets: map[string]*bucket{}}
}

// take spends one token of key's bucket when it has one.
func (l *limiter) take(key string) rateDecision {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if now.Sub(l.lastSweep) >= sweepEvery || len(l.buckets) >= l.maxBuckets {
		l.sweep(now)
	}
	b := l.buckets[key]
	if b == nil {
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[key] = b
	}
	if el := now.Sub(b.last).Seconds(); el > 0 {
		b.tokens = math.Min(l.burst, b.tokens+el*l.rate)
	}
	b.last = now
	d := rateDecision{limit: int(l.burst)}
	if b.tokens >= 1 {
		b.tokens--
		d.allowed = true
	} else {
		d.retry = l.dur(1 - b.tokens)
	}
	d.remaining = int(math.Floor(b.tokens))
	d.reset = l.dur(l.burst - b.tokens)
	return d
}

// dur is how long refilling n tokens takes.
func (l *limiter) dur(n float64) time.Duration {
	return time.Duration(n / l.rate * float64(time.Second))
}

// sweep drops full buckets, then arbitrary ones while over the cap.
func (l *limiter) sweep(now time.Time) {
	l.lastSweep = now
	for k, b := range l.buckets {
		if b.tokens+now.Sub(b.last).Seconds()*l.rate >= l.burst {
			delete(l.buckets, k)
		}
	}
	for k := range l.buckets {
		if len(l.buckets) < l.maxBuckets {
			break
		}
		delete(l.buckets, k)
	}
}

// size returns the number of live buckets (for tests).
func (l *limiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// ceilSeconds rounds a duration up to whole seconds, at least 1.
func ceilSeconds(d time.Duration) int {
	s := int(math.Ceil(d.Seconds()))
	if s < 1 {
		return 1
	}
	return s
}
