package providers

import (
	"strings"
	"testing"
)

// TestPrintable checks printable against a byte-by-byte look for every
// byte value at every offset of values longer than a word, next to bytes
// that could hide it by a borrow.
func TestPrintable(t *testing.T) {
	want := func(b []byte) bool {
		for _, c := range b {
			if c < ' ' && c != '\t' || c == 0x7f {
				return false
			}
		}
		return true
	}
	for n := 1; n <= 19; n++ {
		for at := 0; at < n; at++ {
			for c := range 256 {
				for _, next := range []byte{'a', 0x00, 0x1f, 0x20, 0x21, 0x7f, 0x80, 0xff, '\t'} {
					b := []byte(strings.Repeat("v", n))
					b[at] = byte(c)
					if at+1 < n {
						b[at+1] = next
					}
					if got := printable(b); got != want(b) {
						t.Fatalf("printable(%q) = %v, want %v", b, got, want(b))
					}
				}
			}
		}
	}
}

// BenchmarkPrintableHeaders checks a hosted API's answer header values
// (OpenAI sends some twenty lines: rate limits, ids, cookies).
func BenchmarkPrintableHeaders(b *testing.B) {
	values := [][]byte{[]byte(" application/json"), []byte(" Wed, 25 Nov 2026 03:33:57 GMT"),
		[]byte(" __cf_bm=Yx2r5nE4hXHqT3eV8aJk0L1m2N3o4P5q6R7s8T9u0V1w-1732505637-1.0.1.1-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789; path=/; expires=Wed, 25-Nov-26 04:03:57 GMT; domain=.api.openai.com; HttpOnly; Secure; SameSite=None"),
		[]byte(" req_8f3c2a1b9d7e6f5a4b3c2d1e0f9a8b7c"), []byte(" user-abc123def456ghi789"), []byte(" 8e7f6a5b4c3d2e1f-IAD"),
		[]byte(" max-age=31536000; includeSubDomains; preload"), []byte(" 9999"), []byte(" 149999985"), []byte(" 6ms")}
	for b.Loop() {
		for _, v := range values {
			if !printable(v) {
				b.Fatal("not printable")
			}
		}
	}
}
