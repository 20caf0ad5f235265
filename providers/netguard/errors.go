package netguard

import (
	"errors"
	"net"
)

// dialError rewords a failed dial so it names only what the caller asked
// for (address, the host and port of the URL): not the address a host
// name resolved to, which may be a private one the caller must not learn,
// nor the address of the server's DNS resolver. The error keeps its
// chain, so ErrRefused, timeouts and *net.DNSError are still recognised.
func dialError(network, address string, err error) error {
	if err == nil {
		return nil
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		cp := *dns
		cp.Server = ""
		return &net.OpError{Op: "dial", Net: network, Addr: requested(address), Err: &cp}
	}
	if _, ok := AsRefusal(err); ok {
		return err
	}
	var op *net.OpError
	if errors.As(err, &op) {
		inner := op.Err
		if errors.Is(err, ErrRefused) {
			inner = errNotPublic
		}
		return &net.OpError{Op: op.Op, Net: op.Net, Addr: requested(address), Err: inner}
	}
	if errors.Is(err, ErrRefused) {
		return errNotPublic
	}
	return err
}

// requested is the address as the caller gave it, before resolution.
type requested string

func (r requested) Network() string { return "tcp" }
func (r requested) String() string  { return string(r) }
