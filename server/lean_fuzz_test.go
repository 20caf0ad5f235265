package server

import (
	"testing"
	"time"
)

// FuzzLeanRequest sends raw request bytes to net/http alone and to the
// lean path in front of it: the answers must be byte for byte the same
// (Date values aside), whatever the lean path serves or hands over.
func FuzzLeanRequest(f *testing.F) {
	for _, tc := range leanDiffCases {
		if len(tc.raw) < 8<<10 {
			f.Add([]byte(tc.raw))
		}
	}
	p := startLeanPair(f, handlerFunc(leanDiffHandler), LeanConfig{ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second})
	f.Fuzz(func(t *testing.T, raw []byte) {
		want := normalize(exchange(t, p.plain, string(raw)), p.plain)
		got := normalize(exchange(t, p.lean, string(raw)), p.lean)
		if got != want {
			t.Fatalf("request %q:\nlean answered\n%q\nnet/http answered\n%q", raw, got, want)
		}
	})
}
