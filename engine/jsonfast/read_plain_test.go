package jsonfast

import (
	"encoding/json"
	"testing"
)

// TestPlainStringMatchesEncodingJSON: a string PlainString takes has the
// value encoding/json decodes, and the strings that need unescaping, are
// invalid UTF-8 or are not one valid string literal are left to it.
func TestPlainStringMatchesEncodingJSON(t *testing.T) {
	for _, c := range []struct {
		in    string
		plain bool
	}{
		{`"hello"`, true}, {`""`, true}, {`"héllo ✓ <b>&"`, true}, {`"a\nb"`, false}, {`"q\"q"`, false},
		{`"\u00e9"`, false}, {"\"tab\tin\"", false}, {"\"bad \xff utf8\"", false}, {`"unterminated`, false},
		{`"a"b"`, false}, {`"`, false}, {`x"a"`, false}, {`5`, false},
	} {
		got, ok := PlainString([]byte(c.in))
		if ok != c.plain {
			t.Fatalf("PlainString(%q) took it: %v, want %v", c.in, ok, c.plain)
		}
		if !ok {
			continue
		}
		var want string
		if err := json.Unmarshal([]byte(c.in), &want); err != nil || string(got) != want {
			t.Fatalf("PlainString(%q) = %q; encoding/json %q, %v", c.in, got, want, err)
		}
	}
}
