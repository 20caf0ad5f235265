package providers

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"github.com/hearth-dev/hearth/providers/netguard"
)

// callState is one upstream call's own memory, allocated once when the
// call starts: the call handed back on success and the reader of the
// request's first attempt. http.NewRequestWithContext given a
// *bytes.Reader allocates the reader, a NopCloser around it and a snapshot
// for GetBody on every call. The body stays an io.NopCloser over a
// *bytes.Reader, as NewRequestWithContext makes it: net/http knows such a
// body is in memory and writes the headers and the body in one write
// instead of flushing the headers first. It lives for one call only:
// nothing changes with several Hearth nodes.
type callState struct {
	upstreamCall
	data  []byte
	first bytes.Reader
	// labeled is the call's context labelled with the provider for the
	// egress record (netguard.Label.In).
	labeled netguard.Labeled
}

// getBody is the request's GetBody: a fresh reader of the same bytes, for
// the transport's retry on a reused connection and for redirects.
func (s *callState) getBody() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(s.data)), nil
}

// newRequest makes one attempt's request as http.NewRequestWithContext
// makes it from a *bytes.Reader of body (a nil body: no body). The first
// attempt reads the body through the reader inside s; a retry gets a new
// one, since the transport may still be reading the previous attempt's.
func (s *callState) newRequest(ctx context.Context, method, url string, attempt int) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil || s.data == nil {
		return req, err
	}
	req.ContentLength = int64(len(s.data))
	if len(s.data) == 0 {
		req.Body, req.GetBody = http.NoBody, noBody
		return req, nil
	}
	rd := &s.first
	if attempt > 0 {
		rd = new(bytes.Reader)
	}
	rd.Reset(s.data)
	req.Body, req.GetBody = io.NopCloser(rd), s.getBody
	return req, nil
}

// noBody is the GetBody of an empty body, as net/http sets it.
func noBody() (io.ReadCloser, error) { return http.NoBody, nil }
