package agent

import "github.com/hearth-dev/hearth/engine"

// Ready reports whether Recv would return a chunk at once: one is queued,
// or the step's model stream has chunks at hand that queue one (those are
// taken here; tool-call deltas only add to the step). The end of a step
// (which may run MCP tools) never counts as ready. See engine.ReadyStream.
func (s *AgentStream) Ready() bool {
	for s.head == len(s.queue) {
		if s.done || s.held != nil || !engine.StreamReady(s.cur) {
			return false
		}
		c, err := s.cur.Recv()
		if err != nil {
			// Not expected of a ready stream; Recv returns it in order.
			s.held = err
			return false
		}
		if c != nil {
			s.take(c)
		}
	}
	return true
}

// recvCur returns what the step's model stream sends next: first an error
// Ready received, then the stream's own.
func (s *AgentStream) recvCur() (*engine.ChatChunk, error) {
	if err := s.held; err != nil {
		s.held = nil
		return nil, err
	}
	return s.cur.Recv()
}
