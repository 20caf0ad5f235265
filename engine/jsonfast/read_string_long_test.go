package jsonfast

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestReadStringLongMatchesEncodingJSON: strings longer than a word with a
// byte that stops the word-at-a-time scan at each offset read as
// encoding/json reads them (or report false, for the caller's fallback,
// only where encoding/json replaces or refuses something).
func TestReadStringLongMatchesEncodingJSON(t *testing.T) {
	specials := []string{`\"`, `\\`, `\n`, `\u00e9`, "\u00e9", "\u2028", "\x7f", "\x01", "\xff", `"`}
	for n := 0; n <= 27; n++ {
		for at := 0; at <= n; at++ {
			for _, sp := range specials {
				doc := `"` + strings.Repeat("x", at) + sp + strings.Repeat("y", n-at) + `"`
				var want string
				werr := json.Unmarshal([]byte(doc), &want)
				r := NewReader([]byte(doc))
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

// BenchmarkReadStringPlain reads a completion's plain text.
func BenchmarkReadStringPlain(b *testing.B) {
	doc := []byte(`"Foxes are quick and clever animals that live in forests, fields and even cities, and they hunt mostly at night for food."`)
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		r := NewReader(doc)
		if _, ok := r.rawString(); !ok {
			b.Fatal("not read")
		}
	}
}
