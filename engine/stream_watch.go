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
// guard what they share. hooks, when set, stands for onChunk and onEnd
// (a type that embeds the watchedStream it watches is then one
// allocation, without two method-value closures).
type watchedStream struct {
	next     ChatStream
	onChunk  func(*ChatChunk)
	onEnd    func(error)
	hooks    streamHooks
	closeErr error
	once     sync.Once
}

// streamHooks is what a watchedStream calls when hooks is set: observe as
// onChunk, finish as onEnd.
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
		if s.hooks != nil {
			s.hooks.observe(ch)
		} else if s.onChunk != nil {
			s.onChunk(ch)
		}
	}
	return ch, nil
}

func (s *watchedStream) Close() error {
	s.end(s.closeErr)
	return s.next.Close()
}

func (s *watchedStream) end(err error) {
	s.once.Do(func() {
		if s.hooks != nil {
			s.hooks.finish(err)
		} else {
			s.onEnd(err)
		}
	})
}
