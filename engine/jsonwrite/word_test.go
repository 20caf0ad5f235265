package jsonwrite

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// TestPlainWord checks plainWord against a byte-by-byte look at every
// byte value in every position of a word of plain letters, and next to
// every other byte value below 0x80 (a borrow from one byte into the next
// must not hide either).
func TestPlainWord(t *testing.T) {
	plainByte := func(c byte, html bool) bool {
		return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' && (!html || (c != '<' && c != '>' && c != '&'))
	}
	for _, html := range []bool{true, false} {
		for pos := range 8 {
			for c := range 256 {
				for _, next := range []byte{'a', 0x00, 0x1f, 0x20, 0x21, '"', '<'} {
					w := []byte("abcdefgh")
					w[pos] = byte(c)
					if pos < 7 {
						w[pos+1] = next
					}
					want := true
					for _, b := range w {
						want = want && plainByte(b, html)
					}
					if got := plainWord(binary.LittleEndian.Uint64(w), html); got != want {
						t.Fatalf("plainWord(%q, html=%v) = %v, want %v", w, html, got, want)
					}
				}
			}
		}
	}
}

// TestStringLongMatchesEncodingJSON: each byte that needs escaping, at
// each offset of strings longer than a word, is written as encoding/json
// writes it (String skips plain words eight bytes at a time).
func TestStringLongMatchesEncodingJSON(t *testing.T) {
	specials := []string{"\"", "\\", "\x00", "\x1f", "\n", "<", ">", "&", "\u00e9", "\u2028", "\xff", "\x7f"}
	for n := 1; n <= 27; n++ {
		for at := 0; at < n; at++ {
			for _, sp := range specials {
				s := strings.Repeat("x", at) + sp + strings.Repeat("y", n-at)
				for _, html := range []bool{true, false} {
					want, _ := stdEncode(t, s, html)
					if got := String(nil, s, html); !bytes.Equal(got, want) {
						t.Fatalf("String(%q, html=%v) = %s, encoding/json %s", s, html, got, want)
					}
				}
			}
		}
	}
}

// BenchmarkStringPlain writes a completion's plain text.
func BenchmarkStringPlain(b *testing.B) {
	s := "Foxes are quick and clever animals that live in forests, fields and even cities, and they hunt mostly at night for food."
	buf := make([]byte, 0, 256)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		buf = String(buf[:0], s, false)
	}
}
