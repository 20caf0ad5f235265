package agent

import (
	"errors"
	"io"

	"github.com/hearth-dev/hearth/engine"
)

// Ready reports whether Recv would return a chunk at once: one is queued,
// or the step's model stream has chunks at hand that queue one (those are
// taken here; tool-call deltas only add to the step). The end of a step
// that may run MCP tools never counts as ready; see endAtHand for one that
// cannot. See engine.ReadyStream.
func (s *AgentStream) Ready() bool {
	for s.head == len(s.queue) {
		if s.done || s.held != nil {
			return false
		}
		if !engine.StreamReady(s.cur) {
			return s.endAtHand()
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

// endAtHand ends the step when its model stream has ended and the step
// made no tool call: ending it then runs no tool and waits for nothing, so
// the finish and usage chunks it queues are at hand (and leave in the same
// write as the last text). It reports whether it queued them.
func (s *AgentStream) endAtHand() bool {
	if len(s.calls) > 0 || !engine.StreamEnded(s.cur) {
		return false
	}
	c, err := s.cur.Recv() // io.EOF at once, as in Recv
	switch {
	case err == nil:
		if c != nil {
			s.take(c)
		}
		return s.head < len(s.queue)
	case !errors.Is(err, io.EOF):
		s.held = err
		return false
	}
	if err := s.endStep(); err != nil {
		s.held = err
		return false
	}
	return s.head < len(s.queue)
}
