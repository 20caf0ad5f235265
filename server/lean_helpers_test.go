package server

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// leanDiffHandler answers what the request was and behaves as its path
// asks, so that a divergence in reading a request or in writing an
// answer shows in the raw bytes.
func leanDiffHandler(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	h := w.Header()
	switch {
	case p == "/empty":
		return
	case p == "/204":
		h.Set("Content-Length", "4")
		h.Set("X-A", "b")
		w.WriteHeader(204)
		_, err := w.Write([]byte("nope"))
		fmt.Fprint(io.Discard, err)
		return
	case p == "/304":
		h.Set("Content-Type", "text/plain")
		h.Set("Etag", `"x"`)
		w.WriteHeader(304)
		return
	case p == "/sniff":
		_, _ = w.Write([]byte("<html><body>hi</body></html>"))
		return
	case p == "/big":
		h.Set("Content-Type", "text/plain")
		for i := range 300 {
			fmt.Fprintf(w, "line %04d of a long answer that goes past the buffer\n", i)
		}
		return
	case p == "/bigone":
		_, _ = w.Write([]byte(strings.Repeat("0123456789", 500)))
		return
	case p == "/flush":
		h.Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte("data: 1\n\n"))
		_ = http.NewResponseController(w).Flush()
		_, _ = w.Write([]byte("data: 2\n\n"))
		_ = http.NewResponseController(w).Flush()
		return
	case p == "/flush-empty":
		_ = http.NewResponseController(w).Flush()
		return
	case p == "/unread":
		_, _ = w.Write([]byte("did not read the body"))
		return
	case p == "/partial":
		b := make([]byte, 10)
		n, _ := io.ReadFull(r.Body, b)
		fmt.Fprintf(w, "read %q", b[:n])
		return
	case p == "/bodyclose":
		b := make([]byte, 3)
		n, _ := io.ReadFull(r.Body, b)
		cerr := r.Body.Close()
		_, rerr := r.Body.Read(b)
		fmt.Fprintf(w, "read %q close %v then %v", b[:n], cerr, rerr)
		return
	case p == "/close":
		h.Set("Connection", "close")
		_, _ = w.Write([]byte("bye"))
		return
	case p == "/cl-short":
		h.Set("Content-Length", "10")
		_, _ = w.Write([]byte("short"))
		return
	case p == "/cl-long":
		h.Set("Content-Length", "3")
		_, err := w.Write([]byte("toolong"))
		fmt.Fprint(io.Discard, err)
		return
	case p == "/cl-bad":
		h.Set("Content-Length", "x1")
		_, _ = w.Write([]byte("bad length"))
		return
	case p == "/trailer":
		h.Set("Trailer", "X-Sum")
		_, _ = w.Write([]byte("body"))
		h.Set("X-Sum", "42")
		h.Set(http.TrailerPrefix+"X-Late", "late")
		return
	case p == "/103":
		h.Set("Link", "</a>; rel=preload")
		w.WriteHeader(103)
		h.Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("after hints"))
		return
	case p == "/599":
		w.WriteHeader(599)
		return
	case p == "/after":
		h.Set("X-Before", "1")
		w.WriteHeader(201)
		h.Set("X-After", "2")
		_, _ = w.Write([]byte("created"))
		return
	case p == "/odd-headers":
		h["Bad Name"] = []string{"dropped"}
		h["X-Lines"] = []string{"a\r\nb", "  padded\t"}
		h["lower-key"] = []string{"kept"}
		h.Add("X-Multi", "1")
		h.Add("X-Multi", "2")
		_, _ = w.Write([]byte(`{"ok":true}`))
		return
	case p == "/gzip":
		h.Set("Content-Encoding", "gzip")
		_, _ = w.Write([]byte("\x1f\x8b not really"))
		return
	case p == "/te-identity":
		h.Set("Transfer-Encoding", "identity")
		_, _ = w.Write([]byte("until close"))
		return
	case p == "/te-chunked":
		h.Set("Transfer-Encoding", "chunked")
		_, _ = w.Write([]byte("chunked anyway"))
		return
	case p == "/superfluous":
		w.WriteHeader(202)
		w.WriteHeader(500)
		return
	case p == "/copy-short", p == "/copy-long":
		n := map[string]int{"/copy-short": 300, "/copy-long": 5000}[p]
		_, _ = io.Copy(w, struct{ io.Reader }{strings.NewReader(strings.Repeat("<p>copied</p>", n/13))})
		return
	case p == "/copy-typed":
		h.Set("Content-Type", "text/plain")
		h.Set("Content-Length", "6500")
		_, _ = io.Copy(w, struct{ io.Reader }{strings.NewReader(strings.Repeat("c", 6500))})
		return
	case p == "/serve-content":
		http.ServeContent(w, r, "a.txt", time.Unix(1e9, 0), strings.NewReader(strings.Repeat("served ", 400)))
		return
	case p == "/slow":
		// Past leanWatchDelay: the lean path's hang-up watch reads the
		// next pipelined byte, as net/http's background read does.
		time.Sleep(20 * time.Millisecond)
		_, _ = w.Write([]byte("slow"))
		return
	case p == "/panic-value":
		panic("the handler failed")
	case p == "/panic":
		panic(http.ErrAbortHandler)
	case p == "/panic-after":
		_, _ = w.Write([]byte("partial"))
		_ = http.NewResponseController(w).Flush()
		panic(http.ErrAbortHandler)
	}
	body, err := io.ReadAll(r.Body)
	keys := make([]string, 0, len(r.Header))
	for k := range r.Header {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	h.Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintf(w, "%s %q path=%q rawpath=%q query=%q force=%v proto=%s %d.%d host=%q len=%d close=%v te=%v trailer=%v remote=%v\n",
		r.Method, r.RequestURI, r.URL.Path, r.URL.RawPath, r.URL.RawQuery, r.URL.ForceQuery, r.Proto, r.ProtoMajor, r.ProtoMinor,
		r.Host, r.ContentLength, r.Close, r.TransferEncoding, r.Trailer, strings.HasPrefix(r.RemoteAddr, "127.0.0.1:"))
	for _, k := range keys {
		fmt.Fprintf(w, "%s=%q\n", k, r.Header[k])
	}
	fmt.Fprintf(w, "body=%q err=%v local=%v server=%v\n", body, err,
		r.Context().Value(http.LocalAddrContextKey) != nil, r.Context().Value(http.ServerContextKey) != nil)
}

// leanPair serves h twice: with net/http alone and behind the lean path.
type leanPair struct {
	plain, lean string
	ll          *LeanListener
	// paths records, per client address, whether each request the lean
	// side's handler saw came through the lean path (true) or net/http.
	mu    sync.Mutex
	paths map[string][]bool
}

// served returns how the requests of the client at addr were served,
// and forgets them (a later connection may reuse the port).
func (p *leanPair) served(addr string) []bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.paths[addr]
	delete(p.paths, addr)
	return s
}

// startLeanPair serves h with net/http alone and behind the lean path;
// leanSrv adjusts the lean side's http.Server (which answers what the
// lean path hands over).
func startLeanPair(t testing.TB, h http.Handler, cfg LeanConfig, leanSrv ...func(*http.Server)) *leanPair {
	t.Helper()
	p := &leanPair{paths: map[string][]bool{}}
	plainH := h
	leanH := handlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, lean := w.(*leanResponse)
		p.mu.Lock()
		p.paths[r.RemoteAddr] = append(p.paths[r.RemoteAddr], lean)
		p.mu.Unlock()
		plainH.ServeHTTP(w, r)
	})
	quiet := log.New(io.Discard, "", 0)
	serve := func(lean bool) (string, *LeanListener) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		h := plainH
		if lean {
			h = leanH
		}
		srv := &http.Server{Handler: h, ReadHeaderTimeout: cfg.ReadHeaderTimeout, IdleTimeout: cfg.IdleTimeout,
			MaxHeaderBytes: 64 << 10, ErrorLog: quiet}
		var l net.Listener = ln
		var ll *LeanListener
		if lean {
			for _, f := range leanSrv {
				f(srv)
			}
			c := cfg
			c.ErrorLog = quiet
			c.BaseContext = context.WithValue(context.Background(), http.ServerContextKey, srv)
			ll = NewLeanListener(ln, h, c)
			l = ll
		}
		// Both sides are net/http as Hearth serves it (RFC 9112 §6.1).
		l = guardFraming(l, srv)
		go func() { _ = srv.Serve(l) }()
		t.Cleanup(func() {
			_ = srv.Close()
			if ll != nil {
				ll.CloseConnections()
				_ = ll.Shutdown(t.Context())
			}
		})
		return ln.Addr().String(), ll
	}
	p.plain, _ = serve(false)
	p.lean, p.ll = serve(true)
	return p
}

// exchange sends raw on a fresh connection to addr, half-closes it and
// returns every byte the server wrote until it closed.
func exchange(t testing.TB, addr, raw string) string {
	out, _ := exchangeFrom(t, addr, raw)
	return out
}

// exchangeFrom is exchange that also returns the client's address.
func exchangeFrom(t testing.TB, addr, raw string) (string, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	from := c.LocalAddr().String()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	_ = c.(*net.TCPConn).CloseWrite()
	out, err := io.ReadAll(c)
	if err != nil && !isReset(err) {
		return string(out) + "\n[read error: " + err.Error() + "]", from
	}
	return string(out), from
}

func isReset(err error) bool { return err != nil && strings.Contains(err.Error(), "reset by peer") }

var dateRE = regexp.MustCompile(`(?m)^Date: [^\r]*\r$`)

// normalize blanks the Date values and the answers' host:port.
func normalize(s, addr string) string {
	return strings.ReplaceAll(dateRE.ReplaceAllString(s, "Date: -\r"), addr, "HOST")
}

type handlerFunc func(http.ResponseWriter, *http.Request)

func (f handlerFunc) ServeHTTP(w http.ResponseWriter, r *http.Request) { f(w, r) }
