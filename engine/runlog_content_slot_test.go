package engine

import (
	"reflect"
	"testing"
)

// TestWithContentIn: content attached in a caller's slot is what
// WithContent attaches, kept in the slot, without an allocation.
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
	if n := testing.AllocsPerRun(100, func() { got.WithContentIn(&slot, msgs, "hello", calls, true, secrets...) }); n != 0 {
		t.Fatalf("WithContentIn allocates %.0f times", n)
	}
}
