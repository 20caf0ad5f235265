package engine

// ReadyStream is a stream that can tell whether its next chunk is already
// at hand. A relay writing chunks to a client uses it to send the chunks
// that arrived together in one write: it flushes as soon as Ready is
// false, before a Recv that could wait for the upstream, so no chunk is
// ever held back waiting for a later one.
type ReadyStream interface {
	// Ready reports whether Recv would return a chunk (not an error or
	// io.EOF) without waiting on the network, a tool or the store.
	Ready() bool
}

// StreamReady reports whether s is a ReadyStream whose next chunk is at
// hand; false for any other stream.
func StreamReady(s any) bool {
	r, ok := s.(ReadyStream)
	return ok && r.Ready()
}

// Ready reports whether the wrapped stream's next chunk is at hand.
func (s *watchedStream) Ready() bool { return StreamReady(s.next) }

// EndedStream is a stream that can tell it has ended: Recv would return
// io.EOF without waiting on the network, a tool or the store. A relay that
// knows the end is at hand can send what follows it (the finish and usage
// of an agent run) with the chunks before it, in one write.
type EndedStream interface {
	Ended() bool
}

// StreamEnded reports whether s is an EndedStream that has ended; false
// for any other stream.
func StreamEnded(s any) bool {
	e, ok := s.(EndedStream)
	return ok && e.Ended()
}

// Ended reports whether the wrapped stream has ended.
func (s *watchedStream) Ended() bool { return StreamEnded(s.next) }

// Ready reports whether Recv would return a chunk at once: a final chunk
// is pending, or the upstream has its next chunk at hand (every upstream
// chunk Recv takes is returned). The end of the stream writes the thread,
// so it never counts as ready.
func (s *RunStream) Ready() bool {
	return len(s.pending) > 0 || (!s.done && StreamReady(s.up))
}
