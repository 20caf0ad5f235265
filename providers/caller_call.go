package providers

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/hearth-dev/hearth/providers/netguard"
)

// callState is one upstream call's own memory, allocated once when the
// call starts: the call handed back on success, and the request of the
// first attempt with its URL and its body's reader. http.NewRequestWithContext
// allocates the request, parses the URL into a new *url.URL, and given a
// *bytes.Reader allocates the reader, a NopCloser around it and a snapshot
// for GetBody on every call. A request that leaves for net/http gets its
// body as an io.NopCloser over a *bytes.Reader, as NewRequestWithContext
// makes it (withContext): net/http knows such a body is in memory and
// writes the headers and the body in one write instead of flushing the
// headers first. It lives for one call only: nothing changes with several
// Hearth nodes.
type callState struct {
	upstreamCall
	data  []byte
	first callBody
	// labeled is the call's context labelled with the provider for the
	// egress record (netguard.Label.In).
	labeled netguard.Labeled
	// req0 and url0 are the first attempt's request and URL.
	req0 http.Request
	url0 url.URL
	// abort ends the lean client's connections when the call ends.
	abort callAbort
}

// end ends the call, by its timeout or by the end of the context it was
// made in (callTimer runs it): the call's context is cancelled, by the
// timeout or by the parent, before the lean client's connection is
// aborted (callAbort).
func (s *callState) end() {
	if s.abort.parent.Err() != nil {
		<-s.ctx.Done()
	} else {
		s.cancel(errTimeout)
	}
	s.abort.fire()
}

// getBody is the request's GetBody: a fresh reader of the same bytes, for
// the transport's retry on a reused connection and for redirects.
func (s *callState) getBody() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(s.data)), nil
}

// newRequest makes one attempt's request as http.NewRequestWithContext
// makes it from a *bytes.Reader of body (a nil body: no body), but without
// a context: caller.doWithContext is handed the call's context beside it, and sets
// it on the request (Request.WithContext) only where the request leaves
// for net/http. The URL is parsed once per text (urlCache). The first
// attempt uses the request, URL and body reader inside s; a retry gets new
// ones, since the transport may still be reading the previous attempt's.
func (s *callState) newRequest(urls *urlCache, method, rawURL string, attempt int) (*http.Request, error) {
	if method == "" {
		method = http.MethodGet
	}
	if !validMethod(method) {
		return nil, fmt.Errorf("net/http: invalid method %q", method)
	}
	req, u := &s.req0, &s.url0
	if attempt > 0 {
		req, u = new(http.Request), new(url.URL)
	}
	if err := urls.parseInto(u, rawURL); err != nil {
		return nil, err
	}
	*req = http.Request{Method: method, URL: u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: make(http.Header), Host: u.Host}
	if s.data == nil {
		return req, nil
	}
	req.ContentLength = int64(len(s.data))
	if len(s.data) == 0 {
		req.Body, req.GetBody = http.NoBody, noBody
		return req, nil
	}
	rd := &s.first
	if attempt > 0 {
		rd = new(callBody)
	}
	rd.Reset(s.data)
	req.Body, req.GetBody = rd, s.getBody
	return req, nil
}

// callBody is a request's body read from its call's memory: what
// io.NopCloser makes of a *bytes.Reader, without allocating the wrapper.
// The lean client reads it as it is; withContext gives a request that
// leaves for net/http an io.NopCloser over the same reader instead.
type callBody struct{ bytes.Reader }

// Close does nothing, as io.NopCloser's.
func (*callBody) Close() error { return nil }

// noBody is the GetBody of an empty body, as net/http sets it.
func noBody() (io.ReadCloser, error) { return http.NoBody, nil }
