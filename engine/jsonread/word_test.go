package jsonread

import (
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"
)

// TestPlainWord checks plainWord against plainByte for every byte value
// in every position of a word of plain letters, next to bytes that could
// hide it by a borrow.
func TestPlainWord(t *testing.T) {
	for pos := range 8 {
		for c := range 256 {
			for _, next := range []byte{'a', 0x00, 0x1f, 0x20, 0x21, '"', '\\'} {
				w := []byte("abcdefgh")
				w[pos] = byte(c)
				if pos < 7 {
					w[pos+1] = next
				}
				want := true
				for _, b := range w {
					want = want && plainByte[b]
				}
				if got := plainWord(binary.LittleEndian.Uint64(w)); got != want {
					t.Fatalf("plainWord(%q) = %v, want %v", w, got, want)
				}
			}
		}
	}
}

// TestStringLongMatchesEncodingJSON: strings longer than a word with a
// byte that stops the word-at-a-time scan at each offset read as
// encoding/json reads them (or report false, for the caller's fallback,
// only where encoding/json replaces or refuses something).
func TestStringLongMatchesEncodingJSON(t *testing.T) {
	specials := []string{`\"`, `\\`, `\n`, `\u00e9`, "\u00e9", "\u2028", "\x7f", "\x01", "\xff", `"`}
	for n := 0; n <= 27; n++ {
		for at := 0; at <= n; at++ {
			for _, sp := range specials {
				doc := `"` + strings.Repeat("x", at) + sp + strings.Repeat("y", n-at) + `"`
				var want string
				werr := json.Unmarshal([]byte(doc), &want)
				r := New([]byte(doc))
				got, ok := r.String()
				if ok && r.End() && (werr != nil || got != want) {
					t.Fatalf("%q: read %q; encoding/json %q, %v", doc, got, want, werr)
				}
				if werr == nil && !strings.ContainsAny(sp, "\xff\\") && (!ok || !r.End()) {
					t.Fatalf("%q: not read (encoding/json reads %q)", doc, want)
				}
			}
		}
	}
}

// BenchmarkStringPlain reads a completion's plain text.
func BenchmarkStringPlain(b *testing.B) {
	doc := []byte(`"Foxes are quick and clever animals that live in forests, fields and even cities, and they hunt mostly at night for food."`)
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		r := New(doc)
		if _, ok := r.rawString(); !ok {
			b.Fatal("not read")
		}
	}
}
