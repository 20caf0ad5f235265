package providers

import (
	"context"
	"net/http"
	"testing"
)

// h1CallAllocs is the allocations of one whole upstream call (request
// sent, answer read into a pooled buffer, call closed) through c.
func h1CallAllocs(t *testing.T, c caller, url string) float64 {
	body := []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	call := func() {
		up, err := c.post(context.Background(), url, body, false, func(h http.Header) { c.setBearer(h, "sk-configured") })
		if err != nil {
			t.Fatal(err)
		}
		buf, err := readPooled("openai", up)
		if err != nil {
			t.Fatal(err)
		}
		releaseBody(buf)
	}
	call()
	return testing.AllocsPerRun(300, call)
}

// leanCallAllocBudget bounds a lean call's allocations in TestH1Allocations
// (both sides of the loopback): 33 measured on Go 1.26 with the call's
// request and body in its state (callState.newRequest), the answer in one
// h1Answer and the connection aborted through a callAbort instead of a
// context.AfterFunc on the call's context (41 before them); 32 with the
// timeout timer taken from a pool (callTimer), 31 with the call's end run
// through it instead of a closure a call (callState.end).
const leanCallAllocBudget = 31

// TestH1Allocations: a call through the lean client allocates at least
// twenty-five fewer objects than the same call through net/http's transport
// (its persistConn handoff, channels, response header map and body
// wrappers), on a kept-alive loopback connection, and at most
// leanCallAllocBudget. A count, not a timing.
func TestH1Allocations(t *testing.T) {
	if h1Race {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	srv := startRaw(t, func(int64, *http.Request) ([]byte, bool) { return []byte(okAnswer), false })
	lean, std := h1Callers(t, 0)
	l, s := h1CallAllocs(t, lean, srv.url()), h1CallAllocs(t, std, srv.url())
	t.Logf("allocations a call: lean %.0f, net/http %.0f", l, s)
	if l > s-25 {
		t.Fatalf("lean client: %.0f allocations a call, net/http %.0f: want at least 25 fewer", l, s)
	}
	if l > leanCallAllocBudget {
		t.Fatalf("lean client: %.0f allocations a call, budget %d", l, leanCallAllocBudget)
	}
	if n := srv.accepts.Load(); n != 2 {
		t.Fatalf("%d connections for two clients: a connection was not kept alive", n)
	}
}
