package server

import (
	"strings"
	"testing"
)

// TestLeanHeaderLineValues checks leanHeaderLine's value rule against
// leanBadValueByte for every byte value at every offset of values longer
// than a word, next to bytes that could hide it by a borrow.
func TestLeanHeaderLineValues(t *testing.T) {
	for n := 1; n <= 19; n++ {
		for at := 0; at < n; at++ {
			for c := range 256 {
				for _, next := range []byte{'a', 0x00, 0x1f, 0x20, 0x21, 0x7f, 0x80, 0xff, '\t'} {
					v := []byte(strings.Repeat("v", n))
					v[at] = byte(c)
					if at+1 < n {
						v[at+1] = next
					}
					want := true
					for _, b := range v {
						want = want && !leanBadValueByte[b]
					}
					_, _, got := leanHeaderLine(append([]byte("X-A:"), v...))
					if got != want {
						t.Fatalf("leanHeaderLine(X-A:%q) ok = %v, want %v", v, got, want)
					}
				}
			}
		}
	}
}

// BenchmarkLeanHeaderLine checks the header lines of an SDK's request.
func BenchmarkLeanHeaderLine(b *testing.B) {
	lines := [][]byte{[]byte("Authorization: Bearer pipe_5f3c2a1b9d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c"),
		[]byte("Content-Type: application/json"), []byte("User-Agent: langbase-sdk/1.2.4 node/22.11.0 linux x64"),
		[]byte("Accept: application/json, text/plain, */*"), []byte("Accept-Encoding: gzip, deflate, br"), []byte("Content-Length: 77")}
	for b.Loop() {
		for _, l := range lines {
			if _, _, ok := leanHeaderLine(l); !ok {
				b.Fatal("refused")
			}
		}
	}
}
