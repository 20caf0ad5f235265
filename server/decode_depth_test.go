package server

import (
	"strings"
	"testing"
)

// checkDepthBefore is the state machine checkDepth replaced, one byte at a
// time: the reference for every input, valid JSON or not.
func checkDepthBefore(b []byte) bool {
	depth, inStr, esc := 0, false, false
	for _, ch := range b {
		switch {
		case esc:
			esc = false
		case inStr:
			if ch == '\\' {
				esc = true
			} else if ch == '"' {
				inStr = false
			}
		case ch == '"':
			inStr = true
		case ch == '{' || ch == '[':
			depth++
			if depth > maxJSONDepth {
				return false
			}
		case ch == '}' || ch == ']':
			depth--
		}
	}
	return true
}

// TestCheckDepthUnchanged: checkDepth refuses exactly what the byte-wise
// state machine refused, escapes and unterminated strings included.
func TestCheckDepthUnchanged(t *testing.T) {
	deep := strings.Repeat("[", maxJSONDepth+1)
	for _, s := range []string{
		deep, strings.Repeat("[", maxJSONDepth), `"` + deep + `"`, `"\"` + deep, `"\\"` + deep, `"\\\"` + deep,
		`"\\\\"` + deep, `{"a":"x\"y[[["}` + deep, `"abc`, `\"` + deep, `"` + strings.Repeat(`\`, 7) + `"` + deep,
		`{"model":"openai:gpt-4o-mini","input":"Say \"hi\" [twice]"}`, "", `"`, `\`, `"\`,
	} {
		if got, want := checkDepth([]byte(s)) == nil, checkDepthBefore([]byte(s)); got != want {
			t.Fatalf("%.40q: accepted %v, before %v", s, got, want)
		}
	}
}

// FuzzCheckDepth compares checkDepth with the state machine it replaced.
func FuzzCheckDepth(f *testing.F) {
	f.Add([]byte(`{"a":"[[[[\"\\"}`))
	f.Add([]byte(`"\\\"` + strings.Repeat("[", maxJSONDepth+1)))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := checkDepth(b) == nil, checkDepthBefore(b); got != want {
			t.Fatalf("%q: accepted %v, before %v", b, got, want)
		}
	})
}

// BenchmarkCheckDepth: an agent run's body, with the state machine it
// replaced for comparison.
func BenchmarkCheckDepth(b *testing.B) {
	body := []byte(`{"model":"openai:gpt-4o-mini","instructions":"You are terse.","input":"` + strings.Repeat("Say something about foxes. ", 8) + `"}`)
	b.Run("now", func(b *testing.B) {
		for b.Loop() {
			_ = checkDepth(body)
		}
	})
	b.Run("before", func(b *testing.B) {
		for b.Loop() {
			_ = checkDepthBefore(body)
		}
	})
}
