package providers

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/providers/netguard"
)

// TestH1UsesEgressDialer: the lean client dials through the egress
// dialer: in allowlist mode a destination off the list is refused with
// the same error as on net/http's path, and one on it is reached.
func TestH1UsesEgressDialer(t *testing.T) {
	srv := startRaw(t, func(int64, *http.Request) ([]byte, bool) { return []byte(okAnswer), false })
	for _, tc := range []struct {
		allow   []string
		refused bool
	}{{[]string{"api.openai.com"}, true}, {[]string{srv.ln.Addr().String()}, false}} {
		eg, err := netguard.NewEgress(netguard.ModeAllowlist, tc.allow, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		var got [2]exchange
		for i, mode := range []string{"stdlib", "lean"} {
			c := Config{Retry: RetryPolicy{MaxAttempts: 1}, HTTP1: mode, Egress: eg}.callers()("openai")
			if (c.lean != nil) != (mode == "lean") {
				t.Fatalf("%s: lean client %v", mode, c.lean != nil)
			}
			got[i] = callOnce(t, c, "POST", srv.url(), []byte(`{}`))
		}
		if got[0].err != got[1].err || got[0].body != got[1].body {
			t.Fatalf("allow %v:\nnet/http: %+v\nlean:     %+v", tc.allow, got[0], got[1])
		}
		if refused := strings.Contains(got[1].err, "HEARTH_OUTBOUND_HOSTS"); refused != tc.refused {
			t.Fatalf("allow %v: refused %v, want %v (%s)", tc.allow, refused, tc.refused, got[1].err)
		}
		if !tc.refused && srv.accepts.Load() != 2 {
			t.Fatalf("%d connections, want 2 (one a client)", srv.accepts.Load())
		}
	}
}
