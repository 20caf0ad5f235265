package providers

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"reflect"
	"testing"
	"time"
)

// pipeDial returns a dialer whose every connection is one end of a pipe
// served by a goroutine that reads one request and answers raw, then
// closes.
func pipeDial(raw []byte) func(context.Context, string, string) (net.Conn, error) {
	return func(context.Context, string, string) (net.Conn, error) {
		client, server := net.Pipe()
		go func() {
			defer server.Close()
			req, err := http.ReadRequest(bufio.NewReader(server))
			if err != nil {
				return
			}
			io.Copy(io.Discard, req.Body)
			server.SetWriteDeadline(time.Now().Add(time.Second))
			server.Write(raw)
		}()
		return client, nil
	}
}

// pipeDialCut is pipeDial writing the answer in pieces: each byte of
// cuts is one piece of (b&0x3f)+1 bytes, after a pause of 1 ms when its
// high bit is set (the rest goes in one write). net.Pipe hands each write
// over whole or in smaller reads, never joined with the next.
func pipeDialCut(raw, cuts []byte) func(context.Context, string, string) (net.Conn, error) {
	return func(context.Context, string, string) (net.Conn, error) {
		client, server := net.Pipe()
		go func() {
			defer server.Close()
			req, err := http.ReadRequest(bufio.NewReader(server))
			if err != nil {
				return
			}
			io.Copy(io.Discard, req.Body)
			server.SetWriteDeadline(time.Now().Add(2 * time.Second))
			rest, cuts := raw, cuts
			for len(rest) > 0 {
				n := len(rest)
				if len(cuts) > 0 {
					if cuts[0]&0x80 != 0 {
						time.Sleep(time.Millisecond)
					}
					n = min(int(cuts[0]&0x3f)+1, n)
					cuts = cuts[1:]
				}
				if _, err := server.Write(rest[:n]); err != nil {
					return
				}
				rest = rest[n:]
			}
		}()
		return client, nil
	}
}

// readAnswer sends one POST through rt and reads the whole answer.
func readAnswer(rt func(*http.Request) (*http.Response, error), method string) (status int, body string, err error) {
	status, _, body, err = readAnswerHeader(rt, method)
	return status, body, err
}

// readAnswerHeader is readAnswer with the answer's header.
func readAnswerHeader(rt func(*http.Request) (*http.Response, error), method string) (status int, hdr http.Header, body string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	st := &callState{data: []byte(`{"q":1}`)}
	req, _ := ctxRequest(st, ctx, method, "http://upstream.test/v1/chat/completions", 0)
	resp, err := rt(req)
	if err != nil {
		return 0, nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b), err
}

// FuzzH1Response feeds raw answer bytes to the lean client and to
// net/http's transport: the lean client never panics, and an answer
// net/http reads whole the lean client reads whole too, with the same
// status, header and body, and one net/http refuses it refuses too.
func FuzzH1Response(f *testing.F) {
	for _, tc := range h1Cases {
		if tc.raw != "" {
			f.Add([]byte(tc.raw), tc.method == "HEAD")
		}
	}
	f.Add([]byte(h1GzipAnswer()), false)
	f.Fuzz(func(t *testing.T, raw []byte, head bool) {
		method := "POST"
		if head {
			method = "HEAD"
		}
		dial := pipeDial(raw)
		tr := &http.Transport{DialContext: dial, MaxResponseHeaderBytes: 4096, DisableCompression: true}
		defer tr.CloseIdleConnections()
		lean := newH1Client(tr)
		defer lean.closeIdle()
		ss, sh, sb, serr := readAnswerHeader(tr.RoundTrip, method)
		ls, lh, lb, lerr := readAnswerHeader(func(r *http.Request) (*http.Response, error) { return lean.roundTrip(r.Context(), r, nil) }, method)
		if serr == nil && (lerr != nil || ls != ss || lb != sb || !reflect.DeepEqual(sh, lh)) {
			t.Fatalf("net/http read %d %v %q; lean %d %v %q %v", ss, sh, sb, ls, lh, lb, lerr)
		}
		if serr != nil && lerr == nil {
			t.Fatalf("net/http refused the answer (%v); lean read %d %v %q", serr, ls, lh, lb)
		}
	})
}

// FuzzH1Segmented is FuzzH1Response with the answer arriving in pieces
// down to single bytes, some after a pause: the lean client reads what
// net/http's transport reads, however the upstream's writes are cut.
func FuzzH1Segmented(f *testing.F) {
	for _, tc := range h1Cases {
		if tc.raw != "" {
			f.Add([]byte(tc.raw), []byte{0, 0, 0x83, 5, 0, 0x80, 0x3f}, tc.method == "HEAD")
		}
	}
	f.Add([]byte(h1GzipAnswer()), bytes.Repeat([]byte{0}, 64), false)
	f.Fuzz(func(t *testing.T, raw, cuts []byte, head bool) {
		if len(cuts) > 256 {
			return
		}
		method := "POST"
		if head {
			method = "HEAD"
		}
		tr := &http.Transport{DialContext: pipeDialCut(raw, cuts), MaxResponseHeaderBytes: 4096, DisableCompression: true}
		defer tr.CloseIdleConnections()
		leanTr := &http.Transport{DialContext: pipeDialCut(raw, cuts), MaxResponseHeaderBytes: 4096, DisableCompression: true}
		lean := newH1Client(leanTr)
		defer lean.closeIdle()
		ss, sh, sb, serr := readAnswerHeader(tr.RoundTrip, method)
		ls, lh, lb, lerr := readAnswerHeader(func(r *http.Request) (*http.Response, error) { return lean.roundTrip(r.Context(), r, nil) }, method)
		if serr == nil && (lerr != nil || ls != ss || lb != sb || !reflect.DeepEqual(sh, lh)) {
			t.Fatalf("answer %q cuts %v: net/http read %d %v %q; lean %d %v %q %v", raw, cuts, ss, sh, sb, ls, lh, lb, lerr)
		}
		if serr != nil && lerr == nil {
			t.Fatalf("answer %q cuts %v: net/http refused it (%v); lean read %d %v %q", raw, cuts, serr, ls, lh, lb)
		}
	})
}
