package engine

import (
	"errors"
	"io"

	"github.com/hearth-dev/hearth/engine/guard"
)

// guardedStream redacts the content of each choice of a stream as it
// passes, holding back only what a match may still need
// (guard.StreamRedactor), and releases the held tail with the choice's
// finish reason (or in a last chunk of its own when the upstream ended
// without one). A refusal ends the stream with a 4xx error before any
// matched text was sent.
type guardedStream struct {
	next ChatStream
	g    *guard.Guard
	sink *guardSink
	// redactors are per choice index.
	redactors map[int]*guard.StreamRedactor
	last      *ChatChunk
	pending   *ChatChunk
	done      bool
}

func (s *guardedStream) redactor(i int) *guard.StreamRedactor {
	if s.redactors == nil {
		s.redactors = map[int]*guard.StreamRedactor{}
	}
	r := s.redactors[i]
	if r == nil {
		r = s.g.Stream(s.sink)
		s.redactors[i] = r
	}
	return r
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
		r := s.redactor(ch.Index)
		if ch.Delta.Content != nil {
			out, err := r.Write(*ch.Delta.Content)
			if err != nil {
				s.next.Close()
				return nil, guardError(err)
			}
			ch.Delta.Content = &out
		}
		if ch.FinishReason != nil {
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
			tail = &ChatChunk{Object: "chat.completion.chunk"}
			if s.last != nil {
				tail.ID, tail.Created, tail.Model = s.last.ID, s.last.Created, s.last.Model
			}
		}
		tail.Choices = append(tail.Choices, ChunkChoice{Index: i, Delta: Delta{Content: &text}})
	}
	return tail, nil
}

func (s *guardedStream) Close() error { return s.next.Close() }
