package engine

import (
	"strings"
	"testing"
	"time"
)

// TestThreadWriteAllocations: the keys of a thread's index entry and of a
// message are one allocation each (built on the stack), and a stored
// message is its struct and its metadata map; a name or tool call id
// costs its copy only when present.
func TestThreadWriteAllocations(t *testing.T) {
	th := &Thread{ID: "thread-1", Owner: "alice", Key: strings.Repeat("k", 20), CreatedAt: time.Unix(1_800_000_000, 5)}
	if got, want := threadIdxKey("alice", th), prefixThreadIdx+"alice/"+"9223372034854775802"+"/thread-1"; len(got) != len(want) || !strings.HasSuffix(got, "/thread-1") {
		t.Fatalf("index key %q", got)
	}
	if got := msgKey(th, 7); got != msgPrefix(th)+"0000000000000007" {
		t.Fatalf("message key %q", got)
	}
	plain := ThreadMessageInput{Message: Message{Role: "user", Content: TextContent("hi")}}
	named := ThreadMessageInput{Message: Message{Role: "tool", Content: TextContent("42"), Name: "calc", ToolCallID: "call_1"}}
	m := buildThreadMessage("thread-1", "msg_x", 3, named)
	if m.ID != "msg_x" || *m.Name != "calc" || *m.ToolCallID != "call_1" || m.Metadata == nil {
		t.Fatalf("message %+v", m)
	}
	if m := buildThreadMessage("thread-1", "msg_x", 3, plain); m.Name != nil || m.ToolCallID != nil {
		t.Fatalf("plain message %+v", m)
	}
	slack := 0.0
	if raceEnabled {
		slack = 1
	}
	for _, c := range []struct {
		name string
		want float64
		fn   func()
	}{
		{"threadIdxKey", 1, func() { _ = threadIdxKey("alice", th) }},
		{"msgKey", 1, func() { _ = msgKey(th, 7) }},
		{"plain message", 2, func() { _ = buildThreadMessage("thread-1", "msg_x", 3, plain) }},
		{"named message", 4, func() { _ = buildThreadMessage("thread-1", "msg_x", 3, named) }},
	} {
		if got := testing.AllocsPerRun(100, c.fn); got > c.want+slack {
			t.Errorf("%s: %.0f allocations, want %.0f", c.name, got, c.want)
		}
	}
}
