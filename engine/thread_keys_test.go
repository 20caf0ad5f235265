package engine

import (
	"fmt"
	"math"
	"testing"
	"time"
)

func TestMsgKeyMatchesSprintf(t *testing.T) {
	th := &Thread{Key: "abcdef"}
	for _, seq := range []int64{0, 1, 42, 9999999999999999, 12345678901234567, 1<<63 - 1, -3} {
		if got, want := msgKey(th, seq), fmt.Sprintf("%s%016d", msgPrefix(th), seq); got != want {
			t.Errorf("msgKey(%d) = %q, want %q", seq, got, want)
		}
	}
}

func TestThreadIdxKeyMatchesSprintf(t *testing.T) {
	for _, at := range []time.Time{time.Unix(0, 0), time.Unix(1700000000, 123), time.Unix(-5, 0), time.Date(2262, 4, 11, 0, 0, 0, 0, time.UTC)} {
		th := &Thread{ID: "t-1", CreatedAt: at}
		want := fmt.Sprintf("%s%s/%019d/%s", prefixThreadIdx, "ann", math.MaxInt64-at.UnixNano(), th.ID)
		if got := threadIdxKey("ann", th); got != want {
			t.Errorf("threadIdxKey(%v) = %q, want %q", at, got, want)
		}
	}
}
