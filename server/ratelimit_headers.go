package server

import (
	"math"
	"net/http"
	"strconv"
	"sync"
)

// The RateLimit-* header names as net/http stores them (Header.Set
// canonicalises "RateLimit-Limit" to "Ratelimit-Limit").
var (
	keyRateLimit          = http.CanonicalHeaderKey(HeaderRateLimit)
	keyRateLimitRemaining = http.CanonicalHeaderKey(HeaderRateLimitRemaining)
	keyRateLimitReset     = http.CanonicalHeaderKey(HeaderRateLimitReset)
	keyRateLimitPolicy    = http.CanonicalHeaderKey(HeaderRateLimitPolicy)
)

// rateHeaders are a limiter's RateLimit-Limit and RateLimit-Policy
// values, which depend on its settings only: built once per limiter and
// shared read-only by every answer (len == cap, so an Add copies). They
// are this node's settings, as the limiter: nothing changes with several
// Hearth nodes.
type rateHeaders struct {
	once          sync.Once
	limit, policy []string
	forLimit      int
}

// setRateHeaders sets the RateLimit-* headers of d as Header.Set would set
// them, in one allocation (the remaining and reset values).
func (l *limiter) setRateHeaders(h http.Header, d rateDecision) {
	l.hdr.once.Do(func() {
		b := int(l.burst)
		l.hdr.forLimit = b
		l.hdr.limit = []string{strconv.Itoa(b)}
		l.hdr.policy = []string{l.policy(b)}
	})
	limit, policy := l.hdr.limit, l.hdr.policy
	if d.limit != l.hdr.forLimit {
		limit, policy = []string{strconv.Itoa(d.limit)}, []string{l.policy(d.limit)}
	}
	vals := make([]string, 2)
	vals[0], vals[1] = smallItoa(d.remaining), smallItoa(int(math.Ceil(d.reset.Seconds())))
	h[keyRateLimit], h[keyRateLimitRemaining], h[keyRateLimitReset], h[keyRateLimitPolicy] =
		limit, vals[0:1:1], vals[1:2:2], policy
}

// policy is the RateLimit-Policy value of a bucket of limit requests:
// the limit and the window that refills it, in seconds.
func (l *limiter) policy(limit int) string {
	return strconv.Itoa(limit) + ";w=" + strconv.Itoa(int(math.Ceil(float64(limit)*60/float64(l.perMinute))))
}

// smallInts are the decimal strings of 0 to 999, made once and read-only
// after: the same on every node, nothing to share between Hearth nodes.
var smallInts = func() (s [1000]string) {
	for i := range s {
		s[i] = strconv.Itoa(i)
	}
	return s
}()

// smallItoa is strconv.Itoa without allocating below 1000.
func smallItoa(n int) string {
	if n >= 0 && n < len(smallInts) {
		return smallInts[n]
	}
	return strconv.Itoa(n)
}
