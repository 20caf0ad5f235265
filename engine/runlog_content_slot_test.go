package engine

import (
	"reflect"
	"testing"
)

// TestWithContentIn: content attached in a caller's slot is what
// WithContent attaches, kept in the slot.
func TestWithContentIn(t *testing.T) {
	msgs := []Message{{Role: "user", Content: TextContent("hi")}}
	calls := []ToolCall{{ID: "call_1", Type: "function"}}
	secrets := []string{"sk-a", "sk-b"}
	var want, got RunRecord
	want.WithContent(msgs, "hello", calls, true, secrets...)
	var slot RunContentSlot
	got.WithContentIn(&slot, msgs, "hello", calls, true, secrets...)
	if got.content != &slot.item || !reflect.DeepEqual(*got.content, *want.content) {
		t.Fatalf("content %+v, want %+v", got.content, want.content)
	}
}

// BenchmarkWithContentInAllocs: content attached in a caller's slot costs
// no allocation (Go 1.26).
func BenchmarkWithContentInAllocs(b *testing.B) {
	msgs := []Message{{Role: "user", Content: TextContent("hi")}}
	calls := []ToolCall{{ID: "call_1", Type: "function"}}
	secrets := []string{"sk-a", "sk-b"}
	var r RunRecord
	var slot RunContentSlot
	b.ReportAllocs()
	for b.Loop() {
		r.WithContentIn(&slot, msgs, "hello", calls, true, secrets...)
	}
}
