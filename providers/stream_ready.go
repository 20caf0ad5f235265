package providers

import "io"

// Ready reports whether Recv would return a chunk now, without waiting for
// the upstream: one is queued, or the reader's buffer holds whole events
// that translate into one (those events are read and translated here). It
// never reads from the connection, so a caller may hold output back while
// Ready is true and must flush before a Recv when it is false.
func (s *sseStream) Ready() bool {
	for s.head == len(s.queue) {
		if s.err != nil || s.finished || s.call == nil || !s.sse.complete() {
			return false
		}
		s.step()
	}
	return true
}

// Ended reports whether Recv would return io.EOF now: every chunk was
// returned and the terminal event was seen (or the stream ended cleanly).
func (s *sseStream) Ended() bool {
	return s.head == len(s.queue) && (s.finished && s.err == nil || s.err == io.EOF)
}

// Ready reports whether Recv would return a chunk now.
func (s *sliceStream) Ready() bool { return len(s.chunks) > 0 && s.ctx.Err() == nil }
