//go:build !unix

package providers

import "time"

// alive reports whether an idle connection may be used. Without a
// non-blocking peek on this system, a connection idle past probeAfter
// counts as closed and a fresh one is dialled.
func (pc *h1Conn) alive(idle time.Duration) bool { return idle <= probeAfter }

// probe is unused where alive cannot peek.
func (pc *h1Conn) probe(uintptr) bool { return true }
