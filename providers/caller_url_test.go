package providers

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"testing"
)

// TestNewRequestAsNetHTTP: the request callState.newRequest makes (URL
// parsed once, from the cache after the first call) is the one
// http.NewRequestWithContext makes from a *bytes.Reader, field for field,
// including an empty port dropped from the host and a bad method or URL
// refused with net/http's error.
func TestNewRequestAsNetHTTP(t *testing.T) {
	urls := new(urlCache)
	for _, u := range []string{"http://127.0.0.1:8080/v1/chat/completions", "https://api.openai.com:/v1/chat/completions?x=1",
		"http://[::1]:/v1/models", "http://user:pw@host/v1"} {
		for range 2 {
			st := &callState{data: []byte(`{"a":1}`)}
			got, err := st.newRequest(urls, "POST", u, 0)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := http.NewRequest("POST", u, nil)
			if got.Method != want.Method || got.URL.String() != want.URL.String() || got.Host != want.Host ||
				!reflect.DeepEqual(*got.URL, *want.URL) || got.Proto != want.Proto || got.ProtoMajor != 1 || got.ProtoMinor != 1 {
				t.Fatalf("%s: got %+v, want %+v", u, got, want)
			}
			if got.ContentLength != 7 || got.GetBody == nil {
				t.Fatalf("%s: body %d", u, got.ContentLength)
			}
			b, _ := io.ReadAll(got.Body)
			rb, _ := got.GetBody()
			again, _ := io.ReadAll(rb)
			if string(b) != `{"a":1}` || string(again) != `{"a":1}` {
				t.Fatalf("%s: body %q, GetBody %q", u, b, again)
			}
		}
	}
	st := &callState{}
	for _, c := range []struct{ method, url string }{{"BAD METHOD", "http://h/"}, {"POST", "http://h/%zz"}} {
		_, err := st.newRequest(urls, c.method, c.url, 0)
		_, want := http.NewRequest(c.method, c.url, nil)
		if err == nil || err.Error() != want.Error() {
			t.Errorf("%s %s: error %v, want %v", c.method, c.url, err, want)
		}
	}
}

// TestURLCacheBounded: the cache keeps at most maxCachedURLs URLs; one met
// past that is still parsed right.
func TestURLCacheBounded(t *testing.T) {
	urls := new(urlCache)
	var st callState
	for i := range maxCachedURLs + 10 {
		u := fmt.Sprintf("http://h/v1/models/m%d:generate", i)
		req, err := st.newRequest(urls, "POST", u, 0)
		if err != nil || req.URL.String() != u {
			t.Fatalf("%s: %v %v", u, req.URL, err)
		}
	}
	n := 0
	urls.m.Range(func(any, any) bool { n++; return true })
	if n != maxCachedURLs || urls.size != maxCachedURLs {
		t.Fatalf("%d URLs kept (size %d), want %d", n, urls.size, maxCachedURLs)
	}
}

// BenchmarkNewRequestAllocs: with its URL cached, a call's first request
// costs two allocations on Go 1.26, its header map and its GetBody: the
// request, its URL and its body (a callBody) live in the call's state, and
// the URL is not parsed again (http.NewRequestWithContext allocates the
// request and the URL and parses every time, io.NopCloser the body's
// wrapper).
func BenchmarkNewRequestAllocs(b *testing.B) {
	urls := new(urlCache)
	st := &callState{data: []byte(`{"a":1}`)}
	const u = "http://127.0.0.1:8080/v1/chat/completions"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := st.newRequest(urls, "POST", u, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBodyForNetHTTP: a request leaving for net/http carries its body as
// io.NopCloser makes it of a *bytes.Reader (the form net/http writes with
// its headers in one write), the same bytes; the lean client's keeps the
// callBody.
func TestBodyForNetHTTP(t *testing.T) {
	st := &callState{data: []byte(`{"a":1}`)}
	req, err := st.newRequest(nil, "POST", "http://h/v1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := req.Body.(*callBody); !ok {
		t.Fatalf("body %T", req.Body)
	}
	out := withContext(req, t.Context())
	want := io.NopCloser(bytes.NewReader(nil))
	if reflect.TypeOf(out.Body) != reflect.TypeOf(want) || out.Context() != t.Context() {
		t.Fatalf("body %T, want %T", out.Body, want)
	}
	if b, _ := io.ReadAll(out.Body); string(b) != `{"a":1}` {
		t.Fatalf("body %q", b)
	}
	if again := withContext(out, t.Context()); again != out {
		t.Fatal("a request made for net/http was copied again")
	}
}
