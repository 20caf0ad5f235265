package providers

import (
	"context"
	"net/http"
	"net/url"
	"testing"
)

// TestH1Handles: only plain-http requests without a proxy and with
// nothing the transport must handle itself go through the lean client.
func TestH1Handles(t *testing.T) {
	lean, _ := h1Callers(t, 0)
	h := lean.lean
	mk := func(method, u string, body []byte, hdr map[string]string) *http.Request {
		st := &callState{data: body}
		req, err := ctxRequest(st, context.Background(), method, u, 0)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range hdr {
			req.Header[k] = []string{v}
		}
		return req
	}
	const u = "http://127.0.0.1:8000/v1/chat/completions"
	for name, tc := range map[string]struct {
		req  *http.Request
		want bool
	}{
		"plain POST":         {mk("POST", u, []byte(`{}`), nil), true},
		"GET":                {mk("GET", u+"?a=b", nil, nil), true},
		"https":              {mk("POST", "https://api.openai.com/v1/chat/completions", []byte(`{}`), nil), false},
		"Expect":             {mk("POST", u, []byte(`{}`), map[string]string{"Expect": "100-continue"}), false},
		"Connection":         {mk("POST", u, []byte(`{}`), map[string]string{"Connection": "close"}), false},
		"bad header name":    {mk("POST", u, []byte(`{}`), map[string]string{"Bad Name": "x"}), false},
		"bad header value":   {mk("POST", u, []byte(`{}`), map[string]string{"X-A": "a\r\nb"}), false},
		"credentials in URL": {mk("POST", "http://u:p@127.0.0.1:8000/v1", []byte(`{}`), nil), false},
		"non-ASCII host":     {mk("POST", "http://bücher.example/v1", []byte(`{}`), nil), false},
	} {
		if got := h.handles(tc.req); got != tc.want {
			t.Errorf("%s: handles %v, want %v", name, got, tc.want)
		}
	}
	closing := mk("POST", u, []byte(`{}`), nil)
	closing.Close = true
	if h.handles(closing) {
		t.Error("Request.Close: handled")
	}
	h.proxy = func(*http.Request) (*url.URL, error) { return url.Parse("http://proxy.internal:3128") }
	if h.handles(mk("POST", u, []byte(`{}`), nil)) {
		t.Error("a request the transport would send through a proxy: handled")
	}
	var none *h1Client
	if none.handles(mk("POST", u, []byte(`{}`), nil)) {
		t.Error("no lean client: handled")
	}
}
