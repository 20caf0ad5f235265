package server

import (
	"net/http"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// requestState is what the middleware chain keeps for one request, in one
// allocation: the request's context (with room for its principal, filled
// by authenticate), the request copy carrying that context, the
// lb-request-id and lb-trace-id header values, and guardIO's guards.
// requestIDs makes it and gives the request its context once; guardIO and
// authenticate find it through the context instead of allocating their
// own (and authenticate no longer copies the request with WithContext). A
// context kept past the request (the detached context a run's record is
// written with) keeps the state, and through it the request copy and the
// guards' response writer, until it is dropped. It lives for one request:
// nothing changes with several Hearth nodes.
type requestState struct {
	engine.PrincipalSlot
	// req is the request copy carrying the state as its context, made in
	// the same allocation instead of one of Request.WithContext's own.
	req http.Request
	ids idHeaders
	io  ioGuards
	// start is when requestIDs took the request: observe and the access
	// log measure from it and guardIO counts the body's time limit from
	// it, instead of each reading the clock. end is when the access log
	// took the request as done (zero until then, and without a log line):
	// observe's duration ends there too. Both are one request's: nothing
	// changes with several Hearth nodes.
	start, end time.Time
	// guarded is set when guardIO took io, pipeLimited when limitPipe
	// charged the request to a pipe's rate limit.
	guarded, pipeLimited bool
	// turn is the request's CPU turn, set by admit before the handler
	// runs and inert once the request ended (turn.go).
	turn *turn
}

// carry returns a copy of r with st as its context, held in st.
// WithContext, inlined in this small method, keeps its own copy on the
// stack (inlined in the middleware's closure instead, it was not).
func (st *requestState) carry(r *http.Request) *http.Request {
	st.req = *r.WithContext(st)
	return &st.req
}

// requestStateKey finds a request's requestState in its context.
type requestStateKey struct{}

// Value answers requestStateKey with the state, engine.TurnKey with the
// request's turn, and every other key as the principal slot does.
func (st *requestState) Value(key any) any {
	switch key.(type) {
	case requestStateKey:
		return st
	case engine.TurnKey:
		if st.turn != nil {
			return st.turn
		}
		return nil
	}
	return st.PrincipalSlot.Value(key)
}

// stateOf returns the request's state, or nil for a request served
// without requestIDs. The state is the request's context itself unless a
// layer (tracing) wrapped it; only then is it looked up by key.
func stateOf(c echo.Context) *requestState {
	ctx := c.Request().Context()
	if st, ok := ctx.(*requestState); ok {
		return st
	}
	st, _ := ctx.Value(requestStateKey{}).(*requestState)
	return st
}

// startOf returns when the request started: its state's start, or now
// for a request served without requestIDs.
func startOf(st *requestState) time.Time {
	if st != nil {
		return st.start
	}
	return time.Now()
}

// guardsOf returns room for guardIO's guards: the request's state's, the
// first time it is asked, or a new allocation (a request served without
// requestIDs, or guarded twice).
func guardsOf(st *requestState) *ioGuards {
	if st != nil && !st.guarded {
		st.guarded = true
		return &st.io
	}
	return new(ioGuards)
}

// firstPipeLimit reports whether this is the request's first charge to a
// pipe's rate limit, and marks it charged: in the request's state, or in
// echo's context values (a map a request) when it has none.
func firstPipeLimit(c echo.Context) bool {
	if st := stateOf(c); st != nil {
		first := !st.pipeLimited
		st.pipeLimited = true
		return first
	}
	if c.Get(ctxPipeLimited) != nil {
		return false
	}
	c.Set(ctxPipeLimited, true)
	return true
}
