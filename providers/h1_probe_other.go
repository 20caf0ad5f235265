//go:build !unix

package providers

// alive reports whether an idle connection may be used. Without a
// non-blocking peek on this system, a connection idle past probeAfter
// counts as closed and a fresh one is dialled.
func (pc *h1Conn) alive() bool { return false }

// probe is unused where alive cannot peek.
func (pc *h1Conn) probe(uintptr) bool { return true }
