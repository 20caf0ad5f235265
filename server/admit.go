package server

import (
	"net"
	"strconv"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// admit takes one of the MaxConcurrent slots for the request, shared
// fairly between API keys, and between client addresses for requests
// without a key (share.go). It runs right after authentication, before any
// body is read. A request that finds no slot waits for one, up to
// QueueTimeout and while at most MaxQueued wait; past those bounds it gets
// 503 with Retry-After. Past a fixed per-key or per-address cap (off by
// default) it gets 429 at once. Requests that end before it (unknown
// paths, refused keys) take no slot; /health and /metrics never wait.
func (s *Server) admit(next echo.HandlerFunc) echo.HandlerFunc {
	if s.share == nil && s.turns == nil {
		return next
	}
	return func(c echo.Context) error {
		if p := c.Path(); p == "/health" || p == "/metrics" {
			return next(c)
		}
		var id shareID
		if p := principal(c); p != nil {
			id.id = p.KeyID
		} else {
			id = shareID{ip: true, id: clientAddr(c)}
		}
		if s.share != nil {
			sc, a := s.share.acquire(c.Request().Context(), id)
			if a != admitted {
				return s.refuseAdmission(c, id, a)
			}
			defer s.share.release(sc)
		}
		if s.turns != nil {
			t := s.turns.start(c.Request().Context(), id)
			defer t.end()
			if st := stateOf(c); st != nil {
				st.turn = t
			} else {
				c.SetRequest(c.Request().WithContext(engine.WithTurn(c.Request().Context(), t)))
			}
		}
		return next(c)
	}
}

// refuseAdmission is the error answered for a request admit did not admit.
func (s *Server) refuseAdmission(c echo.Context, id shareID, a admission) error {
	if c.Request().ContentLength != 0 {
		// Without this, net/http reads up to 256 KiB of the unread body
		// before it writes the answer, so a refused slow body would hold a
		// goroutine until the body timeout without an answer.
		c.Response().Header().Set("Connection", "close")
	}
	switch a {
	case refusedCap:
		cp, what, reason := s.share.capKey, "API key", "inflight_key"
		if id.ip {
			cp, what, reason = s.share.capIP, "client address (requests without a key)", "inflight_ip"
		}
		s.metrics.Rejected(reason)
		return &engine.Error{Code: engine.CodeRateLimited, RetryAfter: 1,
			Message: "too many requests in flight: the limit is " + strconv.Itoa(cp) +
				" requests at once per " + what + "; retry when one of them has finished"}
	case refusedTimeout:
		s.metrics.Rejected("queue_timeout")
		return &engine.Error{Code: engine.CodeUnavailable, RetryAfter: 1,
			Message: "the server is at its limit of concurrent requests and this request waited " +
				s.share.wait.String() + " for a slot; retry shortly"}
	case refusedCanceled:
		return &engine.Error{Code: engine.CodeUnavailable, RetryAfter: 1,
			Message: "the request ended while it waited for a slot"}
	}
	s.metrics.Rejected("overload")
	return &engine.Error{Code: engine.CodeUnavailable, RetryAfter: 1,
		Message: "the server is at its limit of concurrent requests and of requests waiting for one; retry shortly"}
}

// clientAddr is the address of the connection's peer. Forwarding headers
// are not trusted: behind a reverse proxy every client shares the proxy's
// address (docs/security.md#request-and-thread-limits).
func clientAddr(c echo.Context) string {
	addr := c.Request().RemoteAddr
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return addr
}

// AdmissionState is the admission's state at one moment in this process.
type AdmissionState struct {
	// Max is MaxConcurrent (0: no limit).
	Max int
	// Held and Waiting count the requests holding a slot and waiting.
	Held, Waiting int
	// Turns is the CPU turns (0: no bound; turn.go), TurnsHeld and
	// TurnsWaiting the requests holding and waiting for one; so far,
	// TurnsGiven were given away by requests waiting on a model or a
	// commit, TurnsTaken taken back from requests that held one too long.
	Turns, TurnsHeld, TurnsWaiting int
	TurnsGiven, TurnsTaken         uint64
}

// Admission returns the admission's state now.
func (s *Server) Admission() AdmissionState {
	var a AdmissionState
	if s.share != nil {
		a = s.share.state()
	}
	if g := s.turns; g != nil {
		t := g.s.state()
		a.Turns, a.TurnsHeld, a.TurnsWaiting = t.Max, t.Held, t.Waiting
		a.TurnsGiven, a.TurnsTaken = g.gave.Load(), g.took.Load()
	}
	return a
}
