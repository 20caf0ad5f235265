package server

import "time"

// The write deadline of a lean connection between requests. A request's
// handler sets it before its writes (deadlineWriter); net/http's server,
// and the lean path before, cleared it after every answer, so that the
// next request starts without one. Clearing removes the connection's
// write timer and the next request's deadline adds it back, each a
// change to the runtime's timer heap under its locks (SetWriteDeadline
// took about 1 µs a request in a 16-client profile of the gateway
// benchmark, docs/benchmarks.md). The lean path leaves the deadline in place after
// an answer instead (writeDeadlineLeft) and clears it only before a write to the
// connection that comes first (an answer written before any deadline was
// set: an error of a middleware outside deadlineWriter's, or the
// connection handed to net/http). A deadline set again first only moves
// the timer (writeDeadlineSet), so every write is bounded as before: by the
// deadline its request set, or by none. It is per connection, in this
// process: nothing changes with several Hearth nodes.
const (
	writeDeadlineNone uint32 = iota
	writeDeadlineSet
	writeDeadlineLeft
)

// setWriteDeadline sets the connection's write deadline for the request
// being answered.
func (c *leanConn) setWriteDeadline(t time.Time) error {
	err := c.rwc.SetWriteDeadline(t)
	if t.IsZero() {
		c.writeDeadline.Store(writeDeadlineNone)
	} else {
		c.writeDeadline.Store(writeDeadlineSet)
	}
	return err
}

// leaveWriteDeadline ends a request: a deadline it set stays, to be moved
// by the next request's or cleared before another write.
func (c *leanConn) leaveWriteDeadline() {
	if c.writeDeadline.Load() == writeDeadlineSet {
		c.writeDeadline.Store(writeDeadlineLeft)
	}
}

// clearLeftWriteDeadline clears a deadline an earlier request left,
// before a write to the connection.
func (c *leanConn) clearLeftWriteDeadline() {
	if c.writeDeadline.Load() == writeDeadlineLeft {
		_ = c.rwc.SetWriteDeadline(time.Time{})
		c.writeDeadline.Store(writeDeadlineNone)
	}
}
