package providers

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// gzipUpstream answers gzip-compressed when asked to, and records the
// Accept-Encoding values it was sent.
type gzipUpstream struct {
	mu   sync.Mutex
	seen []string
}

const gzipAnswer = `{"id":"c","object":"chat.completion","choices":[]}`

func (u *gzipUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	u.mu.Lock()
	u.seen = append(u.seen, r.Header.Get("Accept-Encoding"))
	u.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Accept-Encoding") != "gzip" || r.URL.Path == "/plain" {
		io.WriteString(w, gzipAnswer)
		return
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	io.WriteString(zw, gzipAnswer)
	zw.Close()
	w.Header().Set("Content-Encoding", "gzip")
	w.Write(b.Bytes())
}

func (u *gzipUpstream) take() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	s := u.seen
	u.seen = nil
	return s
}

// answerView is what an adapter sees of an answer.
type answerView struct {
	body                      string
	contentEncoding, length   string
	contentLength             int64
	uncompressed, hasEncoding bool
}

func viewAnswer(t *testing.T, resp *http.Response) answerView {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	_, has := resp.Header["Content-Encoding"]
	return answerView{body: string(b), contentEncoding: resp.Header.Get("Content-Encoding"), length: resp.Header.Get("Content-Length"),
		contentLength: resp.ContentLength, uncompressed: resp.Uncompressed, hasEncoding: has}
}

// TestCallerGzipAsTransport: the caller asks for gzip itself with the
// header net/http's transport would add, and hands the adapters the answer
// the transport would have: decompressed, without Content-Encoding or
// Content-Length, Uncompressed set; a plain answer is left as it is; with
// compression off nothing is asked or decompressed. Each case is compared
// with http.Client.Do through the same transport.
func TestCallerGzipAsTransport(t *testing.T) {
	up := &gzipUpstream{}
	srv := httptest.NewServer(up)
	defer srv.Close()
	for _, tc := range []struct {
		name    string
		path    string
		disable bool
	}{{"gzip", "/gzip", false}, {"plain", "/plain", false}, {"compression off", "/gzip", true}} {
		t.Run(tc.name, func(t *testing.T) {
			tr := &http.Transport{DisableCompression: tc.disable}
			defer tr.CloseIdleConnections()
			req, _ := http.NewRequest(http.MethodPost, srv.URL+tc.path, bytes.NewReader([]byte(`{}`)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json")
			resp, err := (&http.Client{Transport: tr}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			want := viewAnswer(t, resp)
			resp.Body.Close()
			wantSeen := up.take()

			c := testCaller(&http.Client{Transport: tr})
			call, err := c.post(context.Background(), srv.URL+tc.path, []byte(`{}`), false, func(http.Header) {})
			if err != nil {
				t.Fatal(err)
			}
			got := viewAnswer(t, call.resp)
			call.close()
			if got != want {
				t.Errorf("caller's answer %+v, transport's %+v", got, want)
			}
			if seen := up.take(); len(seen) != 1 || len(wantSeen) != 1 || seen[0] != wantSeen[0] {
				t.Errorf("Accept-Encoding sent %q, the transport sends %q", seen, wantSeen)
			}
			if tc.path == "/gzip" && !tc.disable && (!got.uncompressed || got.body != gzipAnswer) {
				t.Errorf("gzip answer not decompressed: %+v", got)
			}
		})
	}
}

// TestGzipBodyClose: a decompressed body read after Close fails, closes
// the upstream body, and a body that is not gzip fails on its first Read
// with gzip's error, as the transport's does.
func TestGzipBodyClose(t *testing.T) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	io.WriteString(zw, "hello")
	zw.Close()
	up := &closeCounter{Reader: bytes.NewReader(b.Bytes())}
	g := &gzipBody{body: up}
	p := make([]byte, 2)
	if n, err := g.Read(p); err != nil || string(p[:n]) != "he" {
		t.Fatalf("read %q, %v", p[:n], err)
	}
	if err := g.Close(); err != nil || up.closed != 1 {
		t.Fatalf("close: %v, upstream closed %d times", err, up.closed)
	}
	if _, err := g.Read(p); err != errGzipReadAfterClose {
		t.Fatalf("read after close: %v", err)
	}
	bad := &gzipBody{body: io.NopCloser(bytes.NewReader([]byte("this is not gzip data at all")))}
	if _, err := bad.Read(p); err != gzip.ErrHeader {
		t.Fatalf("not gzip: %v", err)
	}
	if _, err := bad.Read(p); err != gzip.ErrHeader {
		t.Fatalf("not gzip, again: %v", err)
	}
}

type closeCounter struct {
	*bytes.Reader
	closed int
}

func (c *closeCounter) Close() error { c.closed++; return nil }

// TestAskGzip: the caller adds the shared Accept-Encoding value exactly
// where net/http's transport would add its own.
func TestAskGzip(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rt     http.RoundTripper
		method string
		header string
		want   bool
	}{
		{"no transport of its own (Client.Do's transport asks)", nil, http.MethodPost, "", false},
		{"transport", &http.Transport{}, http.MethodGet, "", true},
		{"compression off", &http.Transport{DisableCompression: true}, http.MethodPost, "", false},
		{"another round tripper", cannedRT{}, http.MethodPost, "", false},
		{"HEAD", &http.Transport{}, http.MethodHead, "", false},
		{"own encoding", &http.Transport{}, http.MethodPost, "Accept-Encoding", false},
		{"range", &http.Transport{}, http.MethodGet, "Range", false},
	} {
		c := testCaller(&http.Client{Transport: tc.rt})
		req, _ := http.NewRequest(tc.method, "http://127.0.0.1:1/", nil)
		if tc.header != "" {
			req.Header.Set(tc.header, "x")
		}
		got := c.askGzip(req)
		v := req.Header["Accept-Encoding"]
		if got != tc.want || (got && (len(v) != 1 || &v[0] != &gzipAccept[0])) || (!got && tc.header != "Accept-Encoding" && v != nil) {
			t.Errorf("%s: asked %v (want %v), Accept-Encoding %q", tc.name, got, tc.want, v)
		}
	}
}

// BenchmarkAskGzipAllocs: asking for gzip sets the shared Accept-Encoding
// value, no allocation (Go 1.26).
func BenchmarkAskGzipAllocs(b *testing.B) {
	c := testCaller(&http.Client{Transport: &http.Transport{}})
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/", nil)
	b.ReportAllocs()
	for b.Loop() {
		delete(req.Header, "Accept-Encoding")
		if !c.askGzip(req) {
			b.Fatal("askGzip did not ask")
		}
	}
}
