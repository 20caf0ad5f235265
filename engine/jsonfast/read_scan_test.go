package jsonfast

import (
	"encoding/json"
	"testing"
)

// TestScanStringPlain: scanString's first pass settles the strings of
// printable ASCII without escapes (plain: no UTF-8 check, no unescaping),
// and every other string is finished by the byte-by-byte pass from where
// the first stopped, with the same result encoding/json gives.
func TestScanStringPlain(t *testing.T) {
	for _, c := range []struct {
		doc       string
		plain, ok bool
	}{
		{`"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT"`, true, true},
		{`""`, true, true},
		{"\"tab\there\"", false, false},
		{`"caf\u00e9"`, false, true},
		{`"café"`, false, true},
		{`"a\"b"`, false, true},
		{`"end\\"`, false, true},
		{"\"del\x7f\"", true, true},
		{"\"ctl\x01\"", false, false},
		{`"open`, false, false},
		{`"bad\x"`, false, false},
		{"\"bad utf-8 \xff\"", false, true},
	} {
		r := NewReader([]byte(c.doc))
		raw, plain, ok := r.scanString()
		if plain != c.plain || ok != c.ok {
			t.Errorf("%q: plain %v ok %v, want %v %v", c.doc, plain, ok, c.plain, c.ok)
			continue
		}
		if ok && string(raw) != c.doc[1:len(c.doc)-1] {
			t.Errorf("%q: raw %q", c.doc, raw)
		}
		var want string
		wantOK := json.Unmarshal([]byte(c.doc), &want) == nil
		r = NewReader([]byte(c.doc))
		got, gotOK := r.String()
		if gotOK && (!wantOK || got != want) {
			t.Errorf("%q: String %q, encoding/json %q (%v)", c.doc, got, want, wantOK)
		}
		if plain && !gotOK {
			t.Errorf("%q: a plain string not decoded", c.doc)
		}
	}
}
