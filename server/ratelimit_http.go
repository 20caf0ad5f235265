package server

import (
	"strconv"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// Rate limit response headers (draft-ietf-httpapi-ratelimit-headers); CORS
// exposes them to browsers.
const (
	HeaderRateLimit          = "RateLimit-Limit"
	HeaderRateLimitRemaining = "RateLimit-Remaining"
	HeaderRateLimitReset     = "RateLimit-Reset"
	HeaderRateLimitPolicy    = "RateLimit-Policy"
)

const ctxPipeLimited = "pipe_rate_limited"

// rateLimit enforces the per-key limit on every authenticated request, and
// the per-pipe limit on requests made with a pipe key. It runs after
// authentication; public requests and /metrics are not limited.
func (s *Server) rateLimit(next echo.HandlerFunc) echo.HandlerFunc {
	if s.keyLimits == nil && s.pipeLimits == nil {
		return next
	}
	return func(c echo.Context) error {
		p := principal(c)
		if p == nil || c.Path() == "/metrics" {
			return next(c)
		}
		if s.keyLimits != nil {
			d := s.keyLimits.decide(c.Request().Context(), p.KeyID, s.logRateErr)
			if err := s.applyRate(c, s.keyLimits, d, "rate_limit_key", "API key"); err != nil {
				return err
			}
		}
		if p.Kind == engine.KeyPipe {
			if err := s.limitPipe(c, p.PipeID); err != nil {
				return err
			}
		}
		return next(c)
	}
}

// limitPipe spends one request of a pipe's budget; handlers that run a pipe
// named in the body (user or org key plus "name") call it once they know
// the pipe's id. It charges a request at most once, and is a no-op when the
// per-pipe limit is off.
func (s *Server) limitPipe(c echo.Context, pipeID string) error {
	if s.pipeLimits == nil || pipeID == "" || !firstPipeLimit(c) {
		return nil
	}
	d := s.pipeLimits.decide(c.Request().Context(), pipeID, s.logRateErr)
	return s.applyRate(c, s.pipeLimits, d, "rate_limit_pipe", "pipe")
}

// admitPipe is the RunRequest.Admit of a request: it spends the pipe's
// rate budget and checks the spending budgets of the pipe's owner and the
// request's key (checkBudget) before the runner does any work for it. It
// is nil when neither is configured; otherwise a, which the caller holds
// (the decoded run body), is the admitter, so no closure is made (a nil a
// is allocated here).
func (s *Server) admitPipe(c echo.Context, a *pipeAdmitter) engine.Admitter {
	if s.pipeLimits == nil && s.deps.Budgets == nil {
		return nil
	}
	if a == nil {
		a = new(pipeAdmitter)
	}
	*a = pipeAdmitter{s: s, c: c}
	return a
}

// pipeAdmitter is admitPipe's engine.Admitter.
type pipeAdmitter struct {
	s *Server
	c echo.Context
}

// AdmitPipe applies the pipe's rate limit, then the spending budgets.
func (a *pipeAdmitter) AdmitPipe(p *engine.Pipe) error {
	if err := a.s.limitPipe(a.c, p.ID); err != nil {
		return err
	}
	return a.s.checkBudget(a.c, p.Owner)
}

// applyRate writes the RateLimit-* headers (keeping the tighter of two
// limits) and turns a refusal into a 429 with Retry-After.
func (s *Server) applyRate(c echo.Context, l *limiter, d rateDecision, reason, what string) error {
	h := c.Response().Header()
	if prev := h.Get(HeaderRateLimitRemaining); d.allowed && prev != "" {
		if n, err := strconv.Atoi(prev); err == nil && n <= d.remaining {
			return nil
		}
	}
	l.setRateHeaders(h, d)
	if d.allowed {
		return nil
	}
	s.metrics.Rejected(reason)
	retry := ceilSeconds(d.retry)
	return &engine.Error{Code: engine.CodeRateLimited, RetryAfter: retry,
		Message: "rate limit exceeded: this " + what + " may make " + strconv.Itoa(l.perMinute) +
			" requests a minute; retry in " + strconv.Itoa(retry) + " s"}
}

// logRateErr logs a shared rate counter that could not be reached.
func (s *Server) logRateErr(err error) {
	s.log.Warn("rate limit counter unavailable; request allowed", "err", err)
}
