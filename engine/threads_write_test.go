package engine

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestThreadWriteKeys: the keys of a thread's index entry and of a
// message, and a stored message with its metadata map; a name or tool
// call id only when present.
func TestThreadWriteKeys(t *testing.T) {
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
}

// BenchmarkThreadWriteAllocs: the keys of a thread's index entry and of a
// message are one allocation each (built on the stack), a stored message
// two (its struct and its metadata map), four with a name and a tool call
// id (Go 1.26).
func BenchmarkThreadWriteAllocs(b *testing.B) {
	th := &Thread{ID: "thread-1", Owner: "alice", Key: strings.Repeat("k", 20), CreatedAt: time.Unix(1_800_000_000, 5)}
	plain := ThreadMessageInput{Message: Message{Role: "user", Content: TextContent("hi")}}
	named := ThreadMessageInput{Message: Message{Role: "tool", Content: TextContent("42"), Name: "calc", ToolCallID: "call_1"}}
	for _, c := range []struct {
		name string
		fn   func()
	}{
		{"threadIdxKey", func() { _ = threadIdxKey("alice", th) }},
		{"msgKey", func() { _ = msgKey(th, 7) }},
		{"plain message", func() { _ = buildThreadMessage("thread-1", "msg_x", 3, plain) }},
		{"named message", func() { _ = buildThreadMessage("thread-1", "msg_x", 3, named) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.fn()
			}
		})
	}
}

// TestCheckRunAppendMeasuresStoredJSON: a run's message is refused exactly
// when its stored JSON (as encoding/json writes it) passes the limit.
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
}

// BenchmarkCheckRunAppendAllocs: checking a plain message allocates only
// the message measured and its metadata map (2 on Go 1.26).
func BenchmarkCheckRunAppendAllocs(b *testing.B) {
	ts := &Threads{}
	ts.SetLimits(ThreadLimits{})
	short := []Message{{Role: "user", Content: TextContent("hi")}}
	b.ReportAllocs()
	for b.Loop() {
		if err := ts.checkRunAppend(nil, "thread-1", short); err != nil {
			b.Fatal(err)
		}
	}
}
