package server

import "github.com/hearth-dev/hearth/engine"

// flushUnlessReady flushes the events written since the last flush unless
// the stream's next chunk is already at hand (engine.ReadyStream): the
// chunks that reach Hearth together leave in one write, and an event is
// never held back while Hearth waits for the upstream, a tool or the
// store. A stream that cannot tell is flushed after every event.
func (w *eventWriter) flushUnlessReady(rs chunkStream) error {
	if !w.unflushed || engine.StreamReady(rs) {
		return nil
	}
	return w.Flush()
}
