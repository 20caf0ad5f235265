// This file holds the word tests: eight bytes at a time (a uint64 read
// little-endian from a byte slice) checked for the byte classes that the
// JSON reader and Hearth's HTTP/1.1 header parsers step over.
// A word that passes holds no byte the caller must look at, and a word
// that fails goes through the caller's byte loop, so a test may only err
// towards false; every test here is exact, though (TestJSONPlain,
// TestPrintable).

package jsonfast

// Masks: every byte 0x01, every byte's top bit.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// Has reports whether a byte of w equals c (a zero byte of w^c…).
func Has(w uint64, c byte) bool {
	x := w ^ (ones * uint64(c))
	return (x-ones)&^x&highs != 0
}

// below reports whether a byte of w without its top bit set is below
// 0x20: its subtraction borrows into its top bit, which w's was clear.
// The lowest such byte borrows from nothing, so the report is exact.
func below(w uint64) bool {
	return (w-ones*' ')&^w&highs != 0
}

// JSONPlain reports whether every byte of w stands for itself inside a
// JSON string: ASCII from the space up, neither a quote nor a backslash.
func JSONPlain(w uint64) bool {
	return w&highs == 0 && !below(w) && !Has(w, '"') && !Has(w, '\\')
}

// Printable reports whether no byte of w is below the space or is DEL:
// a header value's bytes other than a tab (bytes from 0x80 up pass).
func Printable(w uint64) bool {
	return !below(w) && !Has(w, 0x7f)
}
