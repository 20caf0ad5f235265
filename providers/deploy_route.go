package providers

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// deployedChat is the ChatModel of a model with deployments: each call
// goes to the deployment the strategy picks; when that one fails on its
// own side, the call is tried on the next, until one answers or every
// deployment was tried or passed over. A stream is tried again elsewhere
// only while opening it fails: once a deployment answered, the stream
// stays on it.
type deployedChat struct{ m *deployedModel }

func (c deployedChat) Chat(ctx context.Context, req *engine.ChatRequest) (*engine.ChatResponse, error) {
	return route(ctx, c.m, req, func(ctx context.Context, d *deployment, r *engine.ChatRequest) (*engine.ChatResponse, error) {
		start := time.Now()
		resp, err := d.chat.Chat(ctx, r)
		if err != nil {
			return nil, err
		}
		c.m.done(d, time.Since(start), nil)
		c.m.spend(d, &resp.Usage)
		return resp, nil
	})
}

func (c deployedChat) ChatStream(ctx context.Context, req *engine.ChatRequest) (engine.ChatStream, error) {
	return route(ctx, c.m, req, func(ctx context.Context, d *deployment, r *engine.ChatRequest) (engine.ChatStream, error) {
		start := time.Now()
		st, err := d.chat.ChatStream(ctx, r)
		if err != nil {
			return nil, err
		}
		return &deployedStream{next: st, m: c.m, d: d, start: start, ctx: ctx}, nil
	})
}

// route runs call on the deployments in the order pick gives them; when
// none is left but one is being probed, it waits for that probe (once per
// deployment at most).
// call releases the deployment's slot itself on success (done), so a
// stream keeps it until it ends; route releases it on failure.
func route[T any](ctx context.Context, m *deployedModel, req *engine.ChatRequest, call func(context.Context, *deployment, *engine.ChatRequest) (T, error)) (T, error) {
	var zero T
	var tried []*deployment
	var why []skip
	var last error
	waits := 0
	for {
		d, skips, probed := m.pick(ctx, tried)
		if d == nil && probed != nil && waits < len(m.deps) {
			// Nothing else can take the call: wait for the probe (at most
			// probeTimeout), then pick again.
			waits++
			select {
			case <-probed:
				continue
			case <-ctx.Done():
			}
		}
		if d == nil {
			why = append(why, skips...)
			return zero, allFailed(m.id, why, last)
		}
		tried = append(tried, d)
		r := *req
		if d.model != "" {
			r.Model = d.model
		}
		if d.APIKey != "" {
			r.APIKey = d.APIKey
		}
		v, err := call(ctx, d, &r)
		if err == nil {
			engine.NoteDeployment(ctx, d.Name)
			return v, nil
		}
		if ctx.Err() != nil || !deploymentFault(err, d) {
			// The call's own fault (a 4xx) or the caller left: the
			// deployment answered, so it is healthy.
			m.done(d, 0, nil)
			engine.NoteDeployment(ctx, d.Name)
			return zero, err
		}
		m.done(d, 0, err)
		why = append(why, skip{d.Name, shortError(err)})
		last = err
	}
}

// deploymentFault reports whether err is the deployment's failure, which
// another deployment may not have: unreachable, timed out, 5xx, rate
// limited, or its own key refused.
func deploymentFault(err error, d *deployment) bool {
	switch engine.ErrorCode(err) {
	case engine.CodeUpstream, engine.CodeUpstreamTimeout, engine.CodeRateLimited, engine.CodeUnavailable:
		return true
	}
	s := UpstreamStatus(err)
	return d.APIKey != "" && (s == http.StatusUnauthorized || s == http.StatusForbidden)
}

// allFailed is the error of a call no deployment answered: it names each
// deployment tried or passed over and why. With no deployment tried it is
// a SERVICE_UNAVAILABLE; otherwise it keeps the last failure's code.
func allFailed(id string, why []skip, last error) error {
	parts := make([]string, len(why))
	for i, s := range why {
		parts[i] = s.name + ": " + s.why
	}
	msg := "no deployment of " + id + " could answer (" + strings.Join(parts, "; ") + ")"
	code := engine.CodeUnavailable
	var ee *engine.Error
	if asEngineError(last, &ee) {
		code = ee.Code
		return &engine.Error{Code: code, Message: msg, RetryAfter: ee.RetryAfter, Err: last}
	}
	return &engine.Error{Code: code, Message: msg, Err: last}
}

// shortError is an error's public message, clipped for status views.
func shortError(err error) string {
	msg := err.Error()
	var ee *engine.Error
	if asEngineError(err, &ee) {
		msg = ee.Message
	}
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	return msg
}

func asEngineError(err error, target **engine.Error) bool {
	return err != nil && errors.As(err, target)
}

// deployedStream is a stream on its deployment: its first chunk measures
// the time to first token, its end releases the deployment's slot, counts
// its tokens and reports a failure of the deployment's own.
type deployedStream struct {
	next  engine.ChatStream
	m     *deployedModel
	d     *deployment
	start time.Time
	// ctx is the call's: a stream the caller gave up is not the
	// deployment's failure.
	ctx context.Context

	mu    sync.Mutex
	first time.Duration
	usage *engine.Usage
	ended bool
}

func (s *deployedStream) Recv() (*engine.ChatChunk, error) {
	ch, err := s.next.Recv()
	if err != nil {
		s.end(err)
		return nil, err
	}
	s.mu.Lock()
	if s.first == 0 {
		s.first = max(time.Since(s.start), time.Nanosecond)
	}
	if ch.Usage != nil {
		u := *ch.Usage
		s.usage = &u
	}
	s.mu.Unlock()
	return ch, nil
}

func (s *deployedStream) Close() error {
	err := s.next.Close()
	s.end(nil)
	return err
}

// end reports the stream's outcome once: io.EOF or a close is a success,
// another error counts against the deployment when it is of its making.
func (s *deployedStream) end(err error) {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended = true
	first, usage := s.first, s.usage
	s.mu.Unlock()
	var failed error
	if err != nil && !errors.Is(err, io.EOF) && s.ctx.Err() == nil && deploymentFault(err, s.d) {
		failed = err
	}
	s.m.done(s.d, first, failed)
	s.m.spend(s.d, usage)
}

var (
	_ engine.ChatModel  = deployedChat{}
	_ engine.ChatStream = (*deployedStream)(nil)
)
