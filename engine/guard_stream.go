package engine

import (
	"cmp"
	"errors"
	"io"
	"slices"

	"github.com/hearth-dev/hearth/engine/guard"
)

// guardedStream redacts the content of each choice of a stream, and the
// arguments of each tool call, as they pass, holding back only what a match may still need
// (guard.StreamRedactor), and releases the held tail with the choice's
// finish reason (or in a last chunk of its own when the upstream ended
// without one). A refusal ends the stream with a 4xx error before any
// matched text was sent.
type guardedStream struct {
	next ChatStream
	g    *guard.Guard
	sink *guardSink
	// redactors are per choice index, calls per choice and tool call.
	redactors map[int]*guard.StreamRedactor
	calls     map[callAt]*guard.StreamRedactor
	last      *ChatChunk
	pending   *ChatChunk
	done      bool
}

// callAt names one tool call of one choice in a stream.
type callAt struct{ choice, call int }

// redactorAt returns the redactor kept in *m under k, making the map and
// the redactor on first use; a choice's content is keyed by its index, a
// tool call's arguments by its callAt.
func redactorAt[K comparable](s *guardedStream, m *map[K]*guard.StreamRedactor, k K) *guard.StreamRedactor {
	if *m == nil {
		*m = map[K]*guard.StreamRedactor{}
	}
	r := (*m)[k]
	if r == nil {
		r = s.g.Stream(s.sink)
		(*m)[k] = r
	}
	return r
}

// flushCalls returns the held tails of the arguments of choice's calls
// (every choice's when choice < 0), as argument deltas in call order.
func (s *guardedStream) flushCalls(choice int) ([]ToolCall, []int, error) {
	var ats []callAt
	for at := range s.calls {
		if choice < 0 || at.choice == choice {
			ats = append(ats, at)
		}
	}
	slices.SortFunc(ats, func(a, b callAt) int { return cmp.Or(a.choice-b.choice, a.call-b.call) })
	var out []ToolCall
	var of []int
	for _, at := range ats {
		tail, err := s.calls[at].Flush()
		delete(s.calls, at)
		if err != nil {
			return nil, nil, guardError(err)
		}
		if tail != "" {
			idx := at.call
			out = append(out, ToolCall{Index: &idx, Function: FunctionCall{Arguments: tail}})
			of = append(of, at.choice)
		}
	}
	return out, of, nil
}

func (s *guardedStream) Recv() (*ChatChunk, error) {
	if s.pending != nil {
		c := s.pending
		s.pending = nil
		return c, nil
	}
	if s.done {
		return nil, io.EOF
	}
	c, err := s.next.Recv()
	if errors.Is(err, io.EOF) {
		s.done = true
		if tail, err := s.flushAll(); err != nil || tail != nil {
			if err != nil {
				return nil, err
			}
			return tail, nil
		}
		return nil, io.EOF
	}
	if err != nil {
		return nil, err
	}
	s.last = c
	for i := range c.Choices {
		ch := &c.Choices[i]
		r := redactorAt(s, &s.redactors, ch.Index)
		if ch.Delta.Content != nil {
			out, err := r.Write(*ch.Delta.Content)
			if err != nil {
				s.next.Close()
				return nil, guardError(err)
			}
			ch.Delta.Content = &out
		}
		// A tool call's arguments are checked as they stream, each call
		// with its own hold-back (answers already checked whole).
		for j := range ch.Delta.ToolCalls {
			tc := &ch.Delta.ToolCalls[j]
			idx := j
			if tc.Index != nil {
				idx = *tc.Index
			}
			out, err := redactorAt(s, &s.calls, callAt{ch.Index, idx}).Write(tc.Function.Arguments)
			if err != nil {
				s.next.Close()
				return nil, guardError(err)
			}
			tc.Function.Arguments = out
		}
		if ch.FinishReason != nil {
			tails, _, err := s.flushCalls(ch.Index)
			if err != nil {
				s.next.Close()
				return nil, err
			}
			ch.Delta.ToolCalls = append(ch.Delta.ToolCalls, tails...)
			tail, err := r.Flush()
			if err != nil {
				s.next.Close()
				return nil, guardError(err)
			}
			if tail != "" {
				text := tail
				if ch.Delta.Content != nil {
					text = *ch.Delta.Content + tail
				}
				ch.Delta.Content = &text
			}
		}
	}
	return c, nil
}

// flushAll releases what every choice still holds, in one last chunk
// (nil when nothing is held).
func (s *guardedStream) flushAll() (*ChatChunk, error) {
	var tail *ChatChunk
	for i, r := range s.redactors {
		text, err := r.Flush()
		if err != nil {
			return nil, guardError(err)
		}
		if text == "" {
			continue
		}
		if tail == nil {
			tail = s.tailChunk()
		}
		tail.Choices = append(tail.Choices, ChunkChoice{Index: i, Delta: Delta{Content: &text}})
	}
	calls, of, err := s.flushCalls(-1)
	if err != nil {
		return nil, err
	}
	for k, tc := range calls {
		if tail == nil {
			tail = s.tailChunk()
		}
		at := slices.IndexFunc(tail.Choices, func(c ChunkChoice) bool { return c.Index == of[k] })
		if at < 0 {
			tail.Choices = append(tail.Choices, ChunkChoice{Index: of[k]})
			at = len(tail.Choices) - 1
		}
		tail.Choices[at].Delta.ToolCalls = append(tail.Choices[at].Delta.ToolCalls, tc)
	}
	return tail, nil
}

// tailChunk is an empty chunk carrying the stream's id, creation time and
// model, for the tails flushAll releases.
func (s *guardedStream) tailChunk() *ChatChunk {
	c := &ChatChunk{Object: "chat.completion.chunk"}
	if s.last != nil {
		c.ID, c.Created, c.Model = s.last.ID, s.last.Created, s.last.Model
	}
	return c
}

func (s *guardedStream) Close() error { return s.next.Close() }
