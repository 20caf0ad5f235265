package engine

import (
	"errors"
	"io"
	"sync"
)

// watchedStream passes a chat stream through to its caller, shows every
// chunk to onChunk and calls onEnd exactly once when the stream ends: with
// nil at io.EOF, with the error Recv returned, or with closeErr when the
// caller closes the stream first. Close may come from another goroutine
// while Recv runs (a client that went away), so onChunk and onEnd must
// guard what they share. They are hooks' observe and finish (a type that
// embeds the watchedStream it watches is then one allocation, without
// method-value closures).
type watchedStream struct {
	next     ChatStream
	hooks    streamHooks
	closeErr error
	once     sync.Once
}

// streamHooks is what a watchedStream calls: observe for each chunk
// (onChunk), finish once at the end (onEnd).
type streamHooks interface {
	observe(*ChatChunk)
	finish(error)
}

func (s *watchedStream) Recv() (*ChatChunk, error) {
	ch, err := s.next.Recv()
	if err != nil {
		if errors.Is(err, io.EOF) {
			s.end(nil)
		} else {
			s.end(err)
		}
		return ch, err
	}
	if ch != nil {
		s.hooks.observe(ch)
	}
	return ch, nil
}

func (s *watchedStream) Close() error {
	s.end(s.closeErr)
	return s.next.Close()
}

func (s *watchedStream) end(err error) {
	s.once.Do(func() { s.hooks.finish(err) })
}
