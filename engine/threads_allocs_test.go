package engine

import (
	"encoding/json"
	"errors"
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

// TestCheckRunAppendMeasuresStoredJSON: a run's message is refused exactly
// when its stored JSON (as encoding/json writes it) passes the limit, and
// checking a plain message allocates only the message measured and its
// metadata map.
func TestCheckRunAppendMeasuresStoredJSON(t *testing.T) {
	msg := Message{Role: "user", Content: TextContent(strings.Repeat("<é>\n", 700))}
	stored, err := json.Marshal(buildThreadMessage("thread-1", sizingMessageID, 0, ThreadMessageInput{Message: msg}))
	if err != nil {
		t.Fatal(err)
	}
	ts := &Threads{}
	ts.SetLimits(ThreadLimits{MaxMessageBytes: len(stored)})
	if err := ts.checkRunAppend(nil, "thread-1", []Message{msg}); err != nil {
		t.Fatalf("a message of exactly the limit: %v", err)
	}
	ts.SetLimits(ThreadLimits{MaxMessageBytes: len(stored) - 1})
	var e *Error
	if err := ts.checkRunAppend(nil, "thread-1", []Message{msg}); !errors.As(err, &e) || e.Code != CodePayloadTooLarge || e.Field != "messages[0]" {
		t.Fatalf("a message one byte past the limit: %v", err)
	}
	ts.SetLimits(ThreadLimits{})
	short := []Message{{Role: "user", Content: TextContent("hi")}}
	want := 2.0
	if raceEnabled {
		want = 3
	}
	if got := testing.AllocsPerRun(100, func() { _ = ts.checkRunAppend(nil, "thread-1", short) }); got > want {
		t.Fatalf("checkRunAppend: %.0f allocations, want %.0f", got, want)
	}
}
