package providers

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// do sends req as c.client.Do does. A client with its own transport, no
// cookie jar, no overall timeout and the default redirect policy (the
// client Hearth builds, upstream.go) hands the request straight to its transport:
// http.Client.Do would clone every request header for a redirect that
// upstream APIs never send (makeHeadersCopier), copy the URL and allocate
// its redirect state on every call. A redirect answer is handed to the
// client, which follows it exactly as Client.Do does (replayFirst), and
// errors are worded as Client.Do words them (*url.Error). A plain-http
// request goes out through the lean HTTP/1.1 client when there is one
// (h1.go); its redirects are followed through the transport. It holds no
// state between calls: nothing changes with several Hearth nodes.
func (c *caller) do(req *http.Request) (*http.Response, error) {
	return c.doWithContext(req.Context(), req, nil)
}

// doWithContext is do for a request that may not carry the call's context ctx
// (callState.newRequest makes it without one): the lean client is handed
// ctx beside the request, and a request that goes through net/http gets
// it first (Request.WithContext). ab ends the lean client's connections
// when the call ends (nil: a context.AfterFunc on ctx).
func (c *caller) doWithContext(ctx context.Context, req *http.Request, ab *callAbort) (*http.Response, error) {
	cl := c.client
	rt := cl.Transport
	if rt == nil || cl.Jar != nil || cl.Timeout != 0 || cl.CheckRedirect != nil || req.URL == nil || req.URL.User != nil {
		return cl.Do(withContext(req, ctx))
	}
	var resp *http.Response
	var err error
	if c.lean.handles(req) {
		// The lean client gives the request's CPU turn back while each
		// read of the connection waits (h1Conn.Read).
		resp, err = c.lean.roundTrip(ctx, req, ab)
	} else {
		// net/http's transport reads in goroutines of its own: the turn
		// goes back for the whole round trip and for each read of the
		// body (engine/turn.go).
		t := engine.Away(ctx)
		req = withContext(req, ctx)
		resp, err = rt.RoundTrip(req)
		engine.Back(t)
		if t != nil && err == nil && resp != nil && resp.Body != nil {
			resp.Body = &awayBody{ReadCloser: resp.Body, t: t}
		}
	}
	if err != nil {
		if tlsErr, ok := err.(tls.RecordHeaderError); ok && string(tlsErr.RecordHeader[:]) == "HTTP/" {
			err = http.ErrSchemeMismatch
		}
		return nil, &url.Error{Op: urlErrorOp(req.Method), URL: req.URL.String(), Err: err}
	}
	if resp == nil {
		return nil, &url.Error{Op: urlErrorOp(req.Method), URL: req.URL.String(),
			Err: fmt.Errorf("http: RoundTripper implementation (%T) returned a nil *Response with a nil error", rt)}
	}
	if resp.Body == nil {
		if resp.ContentLength > 0 && req.Method != http.MethodHead {
			return nil, &url.Error{Op: urlErrorOp(req.Method), URL: req.URL.String(),
				Err: fmt.Errorf("http: RoundTripper implementation (%T) returned a *Response with content length %d but a nil Body", rt, resp.ContentLength)}
		}
		resp.Body = io.NopCloser(strings.NewReader(""))
	}
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		req = withContext(req, ctx)
		resp.Request = req
		follow := *cl
		follow.Transport = &replayFirst{first: resp, req: req, rt: rt}
		return follow.Do(req)
	}
	return resp, nil
}

// withContext is req made for net/http: with ctx as its context, and a
// callBody as the io.NopCloser over its reader that net/http knows is held
// in memory. It is req itself when nothing needs to change.
func withContext(req *http.Request, ctx context.Context) *http.Request {
	b, own := req.Body.(*callBody)
	if req.Context() == ctx && !own {
		return req
	}
	r := req.WithContext(ctx)
	if own {
		r.Body = io.NopCloser(&b.Reader)
	}
	return r
}

// replayFirst answers its first round trip (the request already sent)
// with the response that request received, and sends every later one (the
// redirect's hops) with rt: http.Client then follows a redirect met by
// caller.do with its own rules (method, body, headers, Referer, limit).
type replayFirst struct {
	first *http.Response
	req   *http.Request
	rt    http.RoundTripper
}

func (r *replayFirst) RoundTrip(req *http.Request) (*http.Response, error) {
	if resp := r.first; resp != nil && req == r.req {
		r.first = nil
		return resp, nil
	}
	return r.rt.RoundTrip(req)
}

// urlErrorOp is the Op of a *url.Error for method, as net/http words it
// ("Post", "Get").
func urlErrorOp(method string) string {
	if method == "" {
		return "Get"
	}
	for i := 0; i < len(method); i++ {
		if method[i] >= 0x80 {
			return method
		}
	}
	return method[:1] + strings.ToLower(method[1:])
}

// awayBody gives the request's CPU turn back while a read of an upstream
// body waits.
type awayBody struct {
	io.ReadCloser
	t engine.Turn
}

func (b *awayBody) Read(p []byte) (int, error) {
	b.t.Leave()
	n, err := b.ReadCloser.Read(p)
	b.t.Return()
	return n, err
}
