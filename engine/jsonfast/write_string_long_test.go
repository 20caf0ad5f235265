package jsonfast

import (
	"bytes"
	"strings"
	"testing"
)

// TestAppendStringLongMatchesEncodingJSON: each byte that needs escaping, at
// each offset of strings longer than a word, is written as encoding/json
// writes it (String skips plain words eight bytes at a time).
func TestAppendStringLongMatchesEncodingJSON(t *testing.T) {
	specials := []string{"\"", "\\", "\x00", "\x1f", "\n", "<", ">", "&", "\u00e9", "\u2028", "\xff", "\x7f"}
	for n := 1; n <= 27; n++ {
		for at := 0; at < n; at++ {
			for _, sp := range specials {
				s := strings.Repeat("x", at) + sp + strings.Repeat("y", n-at)
				for _, html := range []bool{true, false} {
					want, _ := stdEncode(t, s, html)
					if got := AppendString(nil, s, html); !bytes.Equal(got, want) {
						t.Fatalf("AppendString(%q, html=%v) = %s, encoding/json %s", s, html, got, want)
					}
				}
			}
		}
	}
}

// BenchmarkAppendStringPlain writes a completion's plain text.
func BenchmarkAppendStringPlain(b *testing.B) {
	s := "Foxes are quick and clever animals that live in forests, fields and even cities, and they hunt mostly at night for food."
	buf := make([]byte, 0, 256)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		buf = AppendString(buf[:0], s, false)
	}
}
