package jsonfast

import (
	"encoding/binary"
	"testing"
)

// eachWord calls f with every byte value at every position of a word of
// plain letters, next to bytes that could hide it by a borrow.
func eachWord(f func(w []byte)) {
	for pos := range 8 {
		for c := range 256 {
			for _, next := range []byte{'a', 0x00, 0x1f, 0x20, 0x21, '"', '\\', '<', '\t', 0x7f, 0x80, 0xff} {
				w := []byte("abcdefgh")
				w[pos] = byte(c)
				if pos < 7 {
					w[pos+1] = next
				}
				f(w)
			}
		}
	}
}

// TestJSONPlain checks JSONPlain against a look at each byte.
func TestJSONPlain(t *testing.T) {
	eachWord(func(w []byte) {
		want := true
		for _, c := range w {
			want = want && c >= 0x20 && c < 0x80 && c != '"' && c != '\\'
		}
		if got := JSONPlain(binary.LittleEndian.Uint64(w)); got != want {
			t.Fatalf("JSONPlain(%q) = %v, want %v", w, got, want)
		}
	})
}

// TestPrintable checks Printable against a look at each byte.
func TestPrintable(t *testing.T) {
	eachWord(func(w []byte) {
		want := true
		for _, b := range w {
			want = want && b >= ' ' && b != 0x7f
		}
		if got := Printable(binary.LittleEndian.Uint64(w)); got != want {
			t.Fatalf("Printable(%q) = %v, want %v", w, got, want)
		}
	})
}

// TestHas checks Has for every byte value at every position.
func TestHas(t *testing.T) {
	eachWord(func(w []byte) {
		for _, c := range []byte{0, '"', 0x7f, 0xff} {
			want := false
			for _, b := range w {
				want = want || b == c
			}
			if got := Has(binary.LittleEndian.Uint64(w), c); got != want {
				t.Fatalf("Has(%q, %#x) = %v, want %v", w, c, got, want)
			}
		}
	})
}
