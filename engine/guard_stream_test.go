package engine

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine/guard"
)

// guardTestStream yields the given chunks, then io.EOF.
type guardTestStream struct {
	chunks []*ChatChunk
	closed bool
}

func (s *guardTestStream) Recv() (*ChatChunk, error) {
	if len(s.chunks) == 0 {
		return nil, io.EOF
	}
	c := s.chunks[0]
	s.chunks = s.chunks[1:]
	return c, nil
}

func (s *guardTestStream) Close() error { s.closed = true; return nil }

func textChunks(text string, size int, finish bool) []*ChatChunk {
	var out []*ChatChunk
	for i := 0; i < len(text); i += size {
		piece := text[i:min(i+size, len(text))]
		out = append(out, &ChatChunk{ID: "c1", Choices: []ChunkChoice{{Delta: Delta{Content: &piece}}}})
	}
	if finish {
		stop := "stop"
		out = append(out, &ChatChunk{ID: "c1", Choices: []ChunkChoice{{FinishReason: &stop}}})
	}
	return out
}

func drain(t *testing.T, s ChatStream) (string, error) {
	t.Helper()
	var b strings.Builder
	for {
		c, err := s.Recv()
		if errors.Is(err, io.EOF) {
			return b.String(), nil
		}
		if err != nil {
			return b.String(), err
		}
		for _, ch := range c.Choices {
			if ch.Delta.Content != nil {
				b.WriteString(*ch.Delta.Content)
			}
		}
	}
}

// TestGuardedStream: a stream's answer is redacted across chunks, the
// held tail is released with the finish reason or, when the upstream
// ends without one, in a last chunk of its own; a refusal ends the
// stream with a 400 before the match was sent.
func TestGuardedStream(t *testing.T) {
	g, err := guard.Compile(&guard.Policy{Output: &guard.Stage{PII: []string{guard.KindEmail, guard.KindCard}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	text := "Write to jane@example.com or pay with 4111 1111 1111 1111, thanks."
	want := "Write to [EMAIL] or pay with [CREDIT_CARD], thanks."
	for _, finish := range []bool{true, false} {
		for _, size := range []int{1, 5, 64} {
			var rep guard.Report
			s := &guardedStream{next: &guardTestStream{chunks: textChunks(text, size, finish)}, g: g, sink: &guardSink{rep: &rep}}
			got, err := drain(t, s)
			if err != nil || got != want {
				t.Fatalf("finish %v size %d: %q %v", finish, size, got, err)
			}
			if len(rep.Events()) != 2 {
				t.Fatalf("events %+v", rep.Events())
			}
		}
	}
	g, _ = guard.Compile(&guard.Policy{Output: &guard.Stage{PII: []string{guard.KindCard}, PIIAction: guard.ActionRefuse}}, nil)
	up := &guardTestStream{chunks: textChunks(text, 3, true)}
	got, err := drain(t, &guardedStream{next: up, g: g, sink: &guardSink{}})
	var ee *Error
	if !errors.As(err, &ee) || ee.Code != CodeBadRequest || !strings.Contains(ee.Message, "pii.credit_card") || !up.closed {
		t.Fatalf("refusal: %v (upstream closed %v)", err, up.closed)
	}
	if strings.Contains(got, "4111") {
		t.Fatalf("sent part of the card: %q", got)
	}
}

// callChunks streams a tool call's arguments size bytes a chunk, the
// first delta carrying the call's id and name.
func callChunks(args string, size int, finish bool) []*ChatChunk {
	var out []*ChatChunk
	for i := 0; i < len(args); i += size {
		idx := 0
		tc := ToolCall{Index: &idx, Function: FunctionCall{Arguments: args[i:min(i+size, len(args))]}}
		if i == 0 {
			tc.ID, tc.Type, tc.Function.Name = "call_1", "function", "send"
		}
		out = append(out, &ChatChunk{ID: "c1", Choices: []ChunkChoice{{Delta: Delta{ToolCalls: []ToolCall{tc}}}}})
	}
	if finish {
		reason := "tool_calls"
		out = append(out, &ChatChunk{ID: "c1", Choices: []ChunkChoice{{FinishReason: &reason}}})
	}
	return out
}

// TestGuardedStreamToolArguments: a streamed tool call's arguments are
// redacted across deltas as an answer's text is, their held tail released
// with the finish reason or in a last chunk; a refusal ends the stream
// before the match was sent.
func TestGuardedStreamToolArguments(t *testing.T) {
	g, err := guard.Compile(&guard.Policy{Output: &guard.Stage{PII: []string{guard.KindEmail}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	args := `{"to":"jane@example.com","body":"hello there, see you"}`
	want := `{"to":"[EMAIL]","body":"hello there, see you"}`
	collectArgs := func(s ChatStream) (string, error) {
		var b strings.Builder
		for {
			c, err := s.Recv()
			if errors.Is(err, io.EOF) {
				return b.String(), nil
			}
			if err != nil {
				return b.String(), err
			}
			for _, ch := range c.Choices {
				for _, tc := range ch.Delta.ToolCalls {
					if tc.Index == nil || *tc.Index != 0 {
						t.Fatalf("delta without the call's index: %+v", tc)
					}
					b.WriteString(tc.Function.Arguments)
				}
			}
		}
	}
	for _, finish := range []bool{true, false} {
		for _, size := range []int{1, 4, 7, 100} {
			s := &guardedStream{next: &guardTestStream{chunks: callChunks(args, size, finish)}, g: g, sink: &guardSink{}}
			got, err := collectArgs(s)
			if err != nil || got != want {
				t.Fatalf("finish %v size %d: %q %v", finish, size, got, err)
			}
		}
	}
	g, _ = guard.Compile(&guard.Policy{Output: &guard.Stage{PII: []string{guard.KindEmail}, PIIAction: guard.ActionRefuse}}, nil)
	up := &guardTestStream{chunks: callChunks(args, 3, true)}
	got, err := collectArgs(&guardedStream{next: up, g: g, sink: &guardSink{}})
	var ee *Error
	if !errors.As(err, &ee) || !strings.Contains(ee.Message, "pii.email") || !up.closed || strings.Contains(got, "jane@") {
		t.Fatalf("refusal: %v (closed %v), sent %q", err, up.closed, got)
	}
}
