package providers

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// TestH1EndedCallSparesItsConnection: a call's context ending after the
// call returned its connection to the pool does not abort that connection
// (callAbort.release), so the next call reuses it.
func TestH1EndedCallSparesItsConnection(t *testing.T) {
	srv := startRaw(t, func(int64, *http.Request) ([]byte, bool) { return []byte(okAnswer), false })
	lean, _ := h1Callers(t, 0)
	for range 3 {
		ctx, cancel := context.WithCancel(context.Background())
		postRead(t, lean, ctx, srv.url())
		cancel()
		time.Sleep(5 * time.Millisecond) // room for a wrongly kept abort to run
	}
	if a, r := srv.accepts.Load(), srv.requests.Load(); a != 1 || r != 3 {
		t.Fatalf("%d connections, %d requests: want 1 and 3", a, r)
	}
}

// TestH1CallsEndingConcurrently: calls whose contexts end while they wait
// for the answer, by their parent or their timeout, as others complete on
// the same pool, end with their context's error or their answer, and the
// pool keeps serving (run under -race).
func TestH1CallsEndingConcurrently(t *testing.T) {
	srv := startRaw(t, func(n int64, _ *http.Request) ([]byte, bool) {
		if n%3 == 0 {
			time.Sleep(20 * time.Millisecond)
		}
		return []byte(okAnswer), false
	})
	lean, _ := h1Callers(t, 0)
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				c := lean
				ctx, cancel := context.WithCancel(context.Background())
				switch (g + i) % 4 {
				case 1:
					time.AfterFunc(time.Duration(i%5)*time.Millisecond, cancel)
				case 2:
					c.timeout = time.Duration(1+i%5) * time.Millisecond
				}
				up, err := c.post(ctx, srv.url(), []byte(`{}`), false, func(http.Header) {})
				if err == nil {
					var b interface{ Len() int }
					buf, rerr := readPooled("openai", up)
					if rerr == nil {
						if b = buf; b.Len() != len(`{"ok":true}`) {
							t.Errorf("answer of %d bytes", b.Len())
						}
						releaseBody(buf)
					}
					err = rerr
				}
				if err != nil && !errors.Is(err, context.Canceled) && !isTimeoutErr(err) {
					t.Errorf("call %d/%d: %v", g, i, err)
				}
				cancel()
			}
		}()
	}
	wg.Wait()
	if x := callOnce(t, lean, "POST", srv.url(), []byte(`{}`)); x.err != "" || x.status != 200 {
		t.Fatalf("after the storm: %+v", x)
	}
}

// isTimeoutErr reports whether err is a call's timeout (errTimeout's
// wording, as transportError words it).
func isTimeoutErr(err error) bool {
	return errors.Is(err, errTimeout) || engine.ErrorCode(err) == engine.CodeUpstreamTimeout
}
