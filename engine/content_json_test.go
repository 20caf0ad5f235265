package engine

import (
	"encoding/json"
	"testing"
)

// TestContentStringFastPath: a content string read without the second
// decoder pass has exactly the value encoding/json gives it, and the
// strings that need unescaping or are invalid still go through it.
func TestContentStringFastPath(t *testing.T) {
	for _, in := range []string{`"hello"`, `""`, `"héllo ✓ <b>&"`, `"a\nb"`, `"q\"q"`, `"\u00e9"`,
		`"tab	in"`, "\"bad \xff utf8\"", `"unterminated`, `"a"b"`} {
		var want string
		wantErr := json.Unmarshal([]byte(in), &want)
		var c Content
		err := c.UnmarshalJSON([]byte(in))
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q: error %v, encoding/json %v", in, err, wantErr)
		}
		if err == nil && (c.Text != want || !c.Set) {
			t.Fatalf("%q: %q (set %v), encoding/json %q", in, c.Text, c.Set, want)
		}
	}
}

// BenchmarkContentUnmarshalAllocs: a plain content string costs one
// allocation (the string), not a decoder's (Go 1.26).
func BenchmarkContentUnmarshalAllocs(b *testing.B) {
	data := []byte(`"Say something about foxes."`)
	var c Content
	b.ReportAllocs()
	for b.Loop() {
		if err := c.UnmarshalJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}
