package providers

import (
	"context"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/netguard"
)

// caller sends requests to one provider with the shared client, the retry
// policy and the per-call timeout. It holds no per-request state.
type caller struct {
	provider string
	client   *http.Client
	retry    RetryPolicy
	timeout  time.Duration
	sleep    func(ctx context.Context, d time.Duration) error
	// serverKeys are the server-wide provider keys, redacted from every
	// error of every provider (see Secrets).
	serverKeys []string
	// bearers are the Authorization values of serverKeys (http_headers.go).
	bearers bearerValues
	// label is provider as the egress record's feature, boxed once.
	label netguard.Label
	// lean sends plain-http calls past client's transport (h1.go); nil:
	// every call goes through the transport.
	lean *h1Client
	// urls holds the parsed URLs of the calls (caller_url.go); nil: each
	// call parses its URL.
	urls *urlCache
}

// secrets lists what req carried (nil req: the server keys only).
func (c *caller) secrets(req *http.Request) Secrets {
	if req == nil {
		return RequestSecrets(nil, nil, c.serverKeys...)
	}
	return RequestSecrets(req.Header, req.URL, c.serverKeys...)
}

// upstreamCall is one successful (2xx) upstream exchange. Its context is
// cancelled by close, by the caller's context, or by the timeout timer.
type upstreamCall struct {
	resp    *http.Response
	ctx     context.Context
	cancel  context.CancelCauseFunc
	timer   *callTimer
	timeout time.Duration
	// call is the call's state: the timer's owner (callTimer.stop).
	call callEnder
	// req and owner let errors met while reading the answer be redacted
	// of the credentials the request carried.
	req   *http.Request
	owner *caller
	// ab undoes the call's callAbort registration on close.
	ab *callAbort
}

// redact removes the call's credentials from an error read off its answer.
func (u *upstreamCall) redact(err error) error { return u.owner.secrets(u.req).Error(err) }

// extend restarts the timeout: streams call it for every event, so the
// timeout bounds the silence between events rather than the whole stream.
func (u *upstreamCall) extend() { u.timer.reset(u.call, u.timeout) }

// close releases the connection; safe to call more than once. The timer
// is stopped first and released last, once the registration its
// fromParent may have on the call's parent is undone (callAbort.done).
func (u *upstreamCall) close() {
	u.timer.stop(u.call)
	u.resp.Body.Close()
	u.cancel(context.Canceled)
	if u.ab != nil {
		u.ab.done()
	}
	u.timer.release(u.call)
}

// jsonHeader and sseHeader are shared read-only header values (len ==
// cap, so an Add on a request copies instead of writing into them): a
// Header.Set allocates a new one-element slice on every call.
var (
	jsonHeader = []string{"application/json"}
	sseHeader  = []string{"text/event-stream"}
)

// post sends body to url, retrying connection errors, 429 and 5xx with
// exponential backoff and jitter (or the upstream's Retry-After, when it is
// within RetryPolicy.MaxRetryAfter). Retries end once a 2xx answer is
// returned, so nothing is retried after the caller saw a byte.
func (c *caller) post(parent context.Context, url string, body []byte, stream bool, setHeaders func(http.Header)) (*upstreamCall, error) {
	return c.send(parent, http.MethodPost, url, body, stream, setHeaders)
}

// send is post with any method (GET for status polls of job APIs).
func (c *caller) send(parent context.Context, method, url string, body []byte, stream bool, setHeaders func(http.Header)) (*upstreamCall, error) {
	st := &callState{data: body}
	labeled := c.label.In(&st.labeled, parent)
	ctx, cancel := context.WithCancelCause(labeled)
	st.ctx, st.cancel, st.abort.parent = ctx, cancel, labeled
	timer := startCallTimer(c.timeout, st)
	st.abort.ct = timer
	answered := false
	defer func() {
		if !answered {
			st.abort.done()
			timer.release(st)
		}
	}()
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			// Stopped for the backoff; the first attempt runs on the timer
			// startCallTimer started (a reset there would take the timer's
			// lock and move it in the heap for nothing).
			timer.reset(st, c.timeout)
		}
		req, err := st.newRequest(c.urls, method, url, attempt)
		if err != nil {
			timer.stop(st)
			return nil, cancelWith(cancel, c.secrets(nil).Error(transportError(c.provider, ctx, err)))
		}
		if body != nil {
			req.Header["Content-Type"] = jsonHeader
		}
		if stream {
			req.Header["Accept"] = sseHeader
		} else {
			req.Header["Accept"] = jsonHeader
		}
		setHeaders(req.Header)
		propagate(parent, req.Header)
		gz := c.askGzip(req)
		resp, err := c.doWithContext(ctx, req, &st.abort)
		if gz && err == nil {
			ungzip(resp)
		}
		var wait time.Duration
		switch {
		case err != nil:
			if ctx.Err() != nil || attempt+1 >= c.retry.MaxAttempts {
				timer.stop(st)
				return nil, cancelWith(cancel, c.secrets(req).Error(withAddress(transportError(c.provider, ctx, err), c.provider, method, url, 0)))
			}
		case resp.StatusCode >= 200 && resp.StatusCode < 300:
			// Field by field: the call's end may be reading ctx and cancel.
			u := &st.upstreamCall
			u.resp, u.timer, u.timeout, u.call, u.req, u.owner, u.ab = resp, timer, c.timeout, st, req, c, &st.abort
			answered = true
			return &st.upstreamCall, nil
		case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
			body := readErrorBody(resp)
			hint := parseRetryHint(body)
			if wait = RetryAfter(resp.Header, time.Now()); wait == 0 {
				wait = hint.wait
			}
			// A pooled call takes a 429 to the pool's next key instead (keypool.go).
			rateLimitedInPool := resp.StatusCode == http.StatusTooManyRequests && pooled(ctx)
			if rateLimitedInPool || hint.quota != "" || isQuota(resp.StatusCode, body) || attempt+1 >= c.retry.MaxAttempts || wait > c.retry.MaxRetryAfter {
				timer.stop(st)
				cancel(nil)
				return nil, c.secrets(req).Error(responseError(c.provider, resp.StatusCode, body, wait, hint))
			}
		default:
			timer.stop(st)
			cancel(nil)
			return nil, c.secrets(req).Error(withAddress(upstreamError(c.provider, resp), c.provider, method, url, resp.StatusCode))
		}
		timer.stop(st)
		if wait == 0 {
			wait = c.backoff(attempt)
		}
		retryEvent(parent, attempt, resp, err, wait)
		t := engine.Away(ctx)
		err = c.sleep(ctx, wait)
		engine.Back(t)
		if err != nil {
			return nil, cancelWith(cancel, transportError(c.provider, ctx, err))
		}
	}
}

// isQuota reports whether an answer is a 429 of an exhausted quota
// (quota.go), which is not retried.
func isQuota(status int, body []byte) bool {
	if status != http.StatusTooManyRequests {
		return false
	}
	_, ok := quotaExhausted(body)
	return ok
}

// cancelWith releases the call's context after err was worded: the
// wording reads the context's cause, which cancelling would overwrite.
func cancelWith(cancel context.CancelCauseFunc, err error) error {
	cancel(nil)
	return err
}

// backoff is BaseDelay*2^attempt capped at MaxDelay, with "equal jitter":
// half fixed, half random.
func (c *caller) backoff(attempt int) time.Duration {
	d := c.retry.BaseDelay << min(attempt, 20)
	if d > c.retry.MaxDelay || d <= 0 {
		d = c.retry.MaxDelay
	}
	half := d / 2
	if half <= 0 {
		return d
	}
	return half + rand.N(half+1)
}

// SleepCtx waits d or until ctx is done (the outbound clients' backoff).
func SleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
