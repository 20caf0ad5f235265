package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"
)

func TestThreadAppendJSONMatchesEncodingJSON(t *testing.T) {
	for i, th := range []Thread{
		{},
		{ID: "t1", Owner: "ann", Key: "abc", CreatedAt: time.Unix(1700000000, 5).UTC(), Metadata: map[string]string{}, NextSeq: 4},
		{ID: "t<2>", Owner: "bob", Key: "k", CreatedAt: time.Unix(1, 0).In(time.FixedZone("x", -7200)),
			Metadata: map[string]string{"z": "1", "a": "<&>", "m\xff": "\u2028", "": ""}, NextSeq: -1, Pipe: "p", PipeID: "pipe_1"},
		{ID: "t3", Metadata: map[string]string{"only": "one"}, CreatedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		want, wantErr := json.Marshal((*threadFields)(&th))
		got, err := th.AppendJSON([]byte("x"))
		if (err != nil) != (wantErr != nil) || (err == nil && !bytes.Equal(got, append([]byte("x"), want...))) {
			t.Errorf("case %d:\n got %s, %v\nwant x%s, %v", i, got, err, want, wantErr)
		}
	}
}

func TestThreadMessageAppendJSONMatchesEncodingJSON(t *testing.T) {
	name, callID := "bob", "call_1"
	idx := 0
	for i, m := range []ThreadMessage{
		{},
		*buildThreadMessage("t1", "abc", 1700000000, ThreadMessageInput{Message: Message{Role: "user", Content: TextContent("hi <there>\n")}}),
		*buildThreadMessage("t1", "abd", 1, ThreadMessageInput{Message: Message{Role: "tool", Content: TextContent(""), Name: name, ToolCallID: callID},
			Metadata: map[string]string{"b": "2", "a": "1"}}),
		{ID: "m", Role: "assistant", Content: Content{Parts: []ContentPart{{Type: "text", Text: "x"}}, Set: true}},
		{ID: "m", Role: "assistant", ToolCalls: []ToolCall{{Index: &idx, ID: "c", Type: "function", Function: FunctionCall{Name: "f", Arguments: "{}"}}}},
		{ID: "m", Role: "user", Content: TextContent("x"), Attachments: []json.RawMessage{json.RawMessage(`{ "a" : "<b>" }`)}},
		{ID: "m", Role: "user", Content: TextContent("x"), ToolCalls: []ToolCall{}, Attachments: []json.RawMessage{}},
	} {
		want, wantErr := json.Marshal((*threadMessageFields)(&m))
		got, err := m.AppendJSON([]byte("x"))
		if (err != nil) != (wantErr != nil) || (err == nil && !bytes.Equal(got, append([]byte("x"), want...))) {
			t.Errorf("case %d:\n got %s, %v\nwant x%s, %v", i, got, err, want, wantErr)
		}
	}
}

func FuzzThreadMessageAppendJSON(f *testing.F) {
	f.Add("user", "hello <b>", "k", "v", "name", true)
	f.Fuzz(func(t *testing.T, role, text, k, v, name string, set bool) {
		in := ThreadMessageInput{Message: Message{Role: role, Content: Content{Text: text, Set: set}, Name: name},
			Metadata: map[string]string{k: v, v: k}}
		m := buildThreadMessage(k, v, int64(len(text)), in)
		want, _ := json.Marshal((*threadMessageFields)(m))
		if got, _ := m.AppendJSON(nil); !bytes.Equal(got, want) {
			t.Fatalf("AppendJSON = %s, encoding/json %s", got, want)
		}
		th := Thread{ID: role, Owner: text, Key: k, CreatedAt: time.Unix(int64(len(v)), 0).UTC(), Metadata: in.Metadata, Pipe: name}
		want, _ = json.Marshal((*threadFields)(&th))
		if got, _ := th.AppendJSON(nil); !bytes.Equal(got, want) {
			t.Fatalf("Thread.AppendJSON = %s, encoding/json %s", got, want)
		}
	})
}

func TestMsgKeyMatchesSprintf(t *testing.T) {
	th := &Thread{Key: "abcdef"}
	for _, seq := range []int64{0, 1, 42, 9999999999999999, 12345678901234567, 1<<63 - 1, -3} {
		if got, want := msgKey(th, seq), fmt.Sprintf("%s%016d", msgPrefix(th), seq); got != want {
			t.Errorf("msgKey(%d) = %q, want %q", seq, got, want)
		}
	}
}

func TestThreadIdxKeyMatchesSprintf(t *testing.T) {
	for _, at := range []time.Time{time.Unix(0, 0), time.Unix(1700000000, 123), time.Unix(-5, 0), time.Date(2262, 4, 11, 0, 0, 0, 0, time.UTC)} {
		th := &Thread{ID: "t-1", CreatedAt: at}
		want := fmt.Sprintf("%s%s/%019d/%s", prefixThreadIdx, "ann", math.MaxInt64-at.UnixNano(), th.ID)
		if got := threadIdxKey("ann", th); got != want {
			t.Errorf("threadIdxKey(%v) = %q, want %q", at, got, want)
		}
	}
}
