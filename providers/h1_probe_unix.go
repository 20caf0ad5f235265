//go:build unix

package providers

import (
	"time"

	"golang.org/x/sys/unix"
)

// alive reports whether an idle connection is still open: a peek that
// never blocks finds nothing to read (EAGAIN). A server that closed it
// (end of file, reset) or sent bytes no request asked for makes it
// unusable. A connection that cannot be probed is used only while idle
// for at most probeAfter.
func (pc *h1Conn) alive(idle time.Duration) bool {
	if pc.raw == nil {
		return idle <= probeAfter
	}
	pc.probed = 0
	if err := pc.raw.Read(pc.probeFn); err != nil {
		return false
	}
	return pc.probed == 1
}

// probe is the RawConn.Read callback of alive: probed becomes 1 when the
// socket has nothing to read, 2 otherwise. It never asks to wait.
func (pc *h1Conn) probe(fd uintptr) bool {
	if err := peekNoWait(fd, pc.peek[:]); err == unix.EAGAIN || err == unix.EWOULDBLOCK {
		pc.probed = 1
	} else {
		pc.probed = 2
	}
	return true
}
