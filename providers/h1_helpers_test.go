package providers

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// rawServer answers every request on a loopback listener with the bytes
// reply returns for it (its sequence number among all requests), then
// keeps the connection for the next request unless closeAfter says not.
// It counts connections and requests.
type rawServer struct {
	ln       net.Listener
	accepts  atomic.Int64
	requests atomic.Int64
}

func startRaw(t testing.TB, reply func(n int64, req *http.Request) (raw []byte, closeAfter bool)) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.accepts.Add(1)
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					io.Copy(io.Discard, req.Body)
					raw, closeAfter := reply(s.requests.Add(1), req)
					if _, err := c.Write(raw); err != nil || closeAfter {
						return
					}
				}
			}()
		}
	}()
	return s
}

func (s *rawServer) url() string { return "http://" + s.ln.Addr().String() + "/v1/chat/completions" }

// h1Callers returns a caller on the lean client and one on net/http's
// transport, both built as Config builds them (no retries), with the
// transport's header limit set to maxHeader when it is not 0.
func h1Callers(t testing.TB, maxHeader int64) (lean, std caller) {
	t.Helper()
	mk := func(mode string) caller {
		c := Config{Retry: RetryPolicy{MaxAttempts: 1}, HTTP1: mode}.callers()("openai")
		tr := c.client.Transport.(*http.Transport)
		if maxHeader > 0 {
			tr.MaxResponseHeaderBytes = maxHeader
			if c.lean != nil {
				c.lean.maxHeader = maxHeader
			}
		}
		t.Cleanup(func() { tr.CloseIdleConnections(); c.lean.closeIdle() })
		return c
	}
	lean, std = mk("lean"), mk("stdlib")
	if lean.lean == nil || std.lean != nil {
		t.Fatal("HTTP1 does not choose the client")
	}
	return lean, std
}

// exchange is what a caller saw of one call.
type exchange struct {
	status  int
	headers http.Header
	body    string
	err     string
}

// callOnce sends one request through c.do (no retries, no error mapping)
// and reads the whole answer.
func callOnce(t testing.TB, c caller, method, url string, body []byte) exchange {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st := &callState{data: body}
	req, err := ctxRequest(st, ctx, method, url, 0)
	if err != nil {
		t.Fatal(err)
	}
	gz := c.askGzip(req)
	resp, err := c.do(req)
	if err != nil {
		return exchange{err: err.Error()}
	}
	if gz {
		ungzip(resp)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	x := exchange{status: resp.StatusCode, headers: resp.Header, body: string(b)}
	if err != nil {
		x.err = "body: " + err.Error()
	}
	return x
}

// postRead makes one call of c in ctx (post, as the adapters call) and
// reads its answer whole into a pooled buffer, failing the test on an
// error.
func postRead(t testing.TB, c caller, ctx context.Context, url string) {
	t.Helper()
	up, err := c.post(ctx, url, []byte(`{}`), false, func(http.Header) {})
	if err != nil {
		t.Fatal(err)
	}
	buf, err := readPooled("openai", up)
	if err != nil {
		t.Fatal(err)
	}
	releaseBody(buf)
}

// ctxRequest is st.newRequest (no URL cache) with ctx set on the request,
// as a request handed to net/http carries it.
func ctxRequest(st *callState, ctx context.Context, method, url string, attempt int) (*http.Request, error) {
	req, err := st.newRequest(nil, method, url, attempt)
	if err != nil {
		return nil, err
	}
	return req.WithContext(ctx), nil
}
