package providers

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// viaClient returns a client that caller.do cannot send past: a
// CheckRedirect with http.Client's default policy (at most 10 redirects)
// makes every call go through http.Client.Do, the reference behaviour.
func viaClient(rt http.RoundTripper) *http.Client {
	return &http.Client{Transport: rt, CheckRedirect: func(_ *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}}
}

func testCaller(client *http.Client, keys ...string) caller {
	cfg := Config{HTTPClient: client, Retry: RetryPolicy{MaxAttempts: 1}, Providers: map[string]ProviderConfig{}}
	for i, k := range keys {
		cfg.Providers["p"+strconv.Itoa(i)] = ProviderConfig{APIKey: k}
	}
	return cfg.callers()("openai")
}

// seen is what the redirect target received.
type seen struct{ method, body, auth, referer string }

// TestCallerFollowsRedirectsAsClient: a redirect answer met on the direct
// path is followed exactly as http.Client.Do follows it (method, body,
// credentials, Referer), for every redirect status, same host and across
// hosts.
func TestCallerFollowsRedirectsAsClient(t *testing.T) {
	var got seen
	target := func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = seen{r.Method, string(b), r.Header.Get("Authorization"), r.Header.Get("Referer")}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true}`)
	}
	other := httptest.NewServer(http.HandlerFunc(target))
	defer other.Close()
	var status int
	var elsewhere bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/to" {
			target(w, r)
			return
		}
		io.Copy(io.Discard, r.Body)
		loc := "/to"
		if elsewhere {
			loc = other.URL + "/to"
		}
		w.Header().Set("Location", loc)
		w.WriteHeader(status)
	}))
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	for _, st := range []int{301, 302, 303, 307, 308} {
		for _, cross := range []bool{false, true} {
			status, elsewhere = st, cross
			var want, have seen
			var wantBody, haveBody string
			for i, cl := range []*http.Client{viaClient(tr), {Transport: tr}} {
				got = seen{}
				c := testCaller(cl, "sk-one")
				call, err := c.post(context.Background(), srv.URL+"/from", []byte(`{"q":1}`), false,
					func(h http.Header) { c.setBearer(h, "sk-one") })
				if err != nil {
					t.Fatalf("%d cross=%v: %v", st, cross, err)
				}
				b, _ := io.ReadAll(call.resp.Body)
				call.close()
				if i == 0 {
					want, wantBody = got, string(b)
				} else {
					have, haveBody = got, string(b)
				}
			}
			if want.method == "" || have != want || haveBody != wantBody {
				t.Errorf("%d cross=%v: direct saw %+v %q, http.Client %+v %q", st, cross, have, haveBody, want, wantBody)
			}
		}
	}
}

// TestCallerErrorsAsClient: a failed connection is worded as http.Client.Do
// words it (a *url.Error naming the method and URL).
func TestCallerErrorsAsClient(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/v1/chat/completions"
	ln.Close()
	tr := &http.Transport{}
	var msgs []string
	for _, cl := range []*http.Client{viaClient(tr), {Transport: tr}} {
		c := testCaller(cl)
		_, err := c.post(context.Background(), url, []byte(`{}`), false, func(http.Header) {})
		if err == nil {
			t.Fatal("no error from a closed port")
		}
		msgs = append(msgs, err.Error())
	}
	if msgs[0] != msgs[1] || !strings.Contains(msgs[1], `Post "`+url+`"`) {
		t.Fatalf("direct: %q\nhttp.Client: %q", msgs[1], msgs[0])
	}
}

// cannedRT answers every request with a fixed JSON body, off the network.
type cannedRT struct{}

func (cannedRT) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(nil)), Request: req}, nil
}

// BenchmarkCallerDirectAllocs: an upstream call sent past http.Client.Do
// with a configured key's shared Authorization value, and the same call
// through http.Client.Do (its header clone for redirects, URL copy and
// redirect state) with the key worded per call: at least six allocations
// apart on Go 1.26.
func BenchmarkCallerDirectAllocs(b *testing.B) {
	body := []byte(`{"model":"m","messages":[]}`)
	for _, c := range []struct {
		name string
		cl   *http.Client
		key  string
	}{
		{"direct", &http.Client{Transport: cannedRT{}}, "sk-configured"},
		{"http.Client.Do", viaClient(cannedRT{}), "sk-per-request"},
	} {
		b.Run(c.name, func(b *testing.B) {
			cl := testCaller(c.cl, "sk-configured")
			set := func(h http.Header) { cl.setBearer(h, c.key) }
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				call, err := cl.post(ctx, "http://upstream.test/v1/chat/completions", body, false, set)
				if err != nil {
					b.Fatal(err)
				}
				call.close()
			}
		})
	}
}
