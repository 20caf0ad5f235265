package server

import (
	"math"
	"net/http"
	"reflect"
	"strconv"
	"testing"
	"time"
)

// TestRateHeadersAsHeaderSet: the RateLimit-* headers are the values and
// keys Header.Set gives them, for limits and counts past the table of
// small numbers too, and cost one allocation an answer.
func TestRateHeadersAsHeaderSet(t *testing.T) {
	for _, perMinute := range []int{1, 60, 600, 5000} {
		for _, burst := range []int{0, 7, 1500} {
			l := newLimiter(perMinute, burst)
			for _, d := range []rateDecision{
				{allowed: true, limit: int(l.burst), remaining: int(l.burst) - 1, reset: 1500 * time.Millisecond},
				{limit: int(l.burst), remaining: 0, reset: 90 * time.Minute, retry: time.Second},
				{allowed: true, limit: int(l.burst), remaining: 999, reset: 0},
				{allowed: true, limit: int(l.burst) + 3, remaining: 1000, reset: time.Hour}, // another limit
			} {
				want := http.Header{}
				want.Set(HeaderRateLimit, strconv.Itoa(d.limit))
				want.Set(HeaderRateLimitRemaining, strconv.Itoa(d.remaining))
				want.Set(HeaderRateLimitReset, strconv.Itoa(int(math.Ceil(d.reset.Seconds()))))
				want.Set(HeaderRateLimitPolicy, strconv.Itoa(d.limit)+";w="+strconv.Itoa(int(math.Ceil(float64(d.limit)*60/float64(perMinute)))))
				got := http.Header{}
				l.setRateHeaders(got, d)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%d/min burst %d %+v:\n got %v\nwant %v", perMinute, burst, d, got, want)
				}
			}
		}
	}
}

// BenchmarkRateHeadersAllocs: a request's RateLimit headers cost one
// allocation on Go 1.26.
func BenchmarkRateHeadersAllocs(b *testing.B) {
	l := newLimiter(600, 0)
	h := http.Header{}
	d := rateDecision{allowed: true, limit: 600, remaining: 599, reset: 100 * time.Millisecond}
	b.ReportAllocs()
	for b.Loop() {
		clear(h)
		l.setRateHeaders(h, d)
	}
}
