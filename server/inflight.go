package server

import (
	"net"
	"strconv"
	"sync"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// inflight counts the requests each client (an API key id, or a client
// address for requests without a key) has in flight, refusing more than
// max at once. Entries are removed when their count drops to zero, so
// memory follows the number of active clients.
//
// The counts live in this process: when several Hearth nodes share one
// database, each node enforces the cap on its own, so a client spread
// over N nodes may hold up to N times the cap in all. The global
// MaxConcurrent of each node still bounds that node.
type inflight struct {
	max int
	mu  sync.Mutex
	n   map[string]int
}

func newInflight(max int) *inflight {
	if max <= 0 {
		return nil
	}
	return &inflight{max: max, n: map[string]int{}}
}

// acquire takes one of the client's slots; it reports false when all are taken.
func (f *inflight) acquire(client string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n[client] >= f.max {
		return false
	}
	f.n[client]++
	return true
}

func (f *inflight) release(client string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n[client] <= 1 {
		delete(f.n, client)
		return
	}
	f.n[client]--
}

// limitInFlight caps the requests in flight per API key, and per client
// address for requests made without a key (public routes, signed uploads).
// It runs right after authentication, before any body is read, so a client
// holding its slots with slow bodies is refused at once with 429 instead
// of taking the server's MaxConcurrent slots from everyone else.
func (s *Server) limitInFlight(next echo.HandlerFunc) echo.HandlerFunc {
	if s.keyInFlight == nil && s.ipInFlight == nil {
		return next
	}
	return func(c echo.Context) error {
		if p := c.Path(); p == "/health" || p == "/metrics" {
			return next(c)
		}
		f, client, what, reason := s.keyInFlight, "", "API key", "inflight_key"
		if p := principal(c); p != nil {
			client = p.KeyID
		} else {
			f, client, what, reason = s.ipInFlight, clientAddr(c), "client address (requests without a key)", "inflight_ip"
		}
		if f == nil {
			return next(c)
		}
		if !f.acquire(client) {
			s.metrics.Rejected(reason)
			if c.Request().ContentLength != 0 {
				// Without this, net/http reads up to 256 KiB of the unread
				// body before it writes the 429, so a refused slow body would
				// hold a goroutine until the body timeout without an answer.
				c.Response().Header().Set("Connection", "close")
			}
			return &engine.Error{Code: engine.CodeRateLimited, RetryAfter: 1,
				Message: "too many requests in flight: the limit is " + strconv.Itoa(f.max) +
					" requests at once per " + what + "; retry when one of them has finished"}
		}
		defer f.release(client)
		return next(c)
	}
}

// clientAddr is the address of the connection's peer. Forwarding headers
// are not trusted: behind a reverse proxy every client shares the proxy's
// address (README "Request and thread limits").
func clientAddr(c echo.Context) string {
	addr := c.Request().RemoteAddr
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return addr
}
