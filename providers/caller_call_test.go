package providers

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"reflect"
	"testing"
	"time"
)

// recordRT answers 500 to the first fails round trips and 200 after,
// keeping what each request carried.
type recordRT struct {
	fails int
	seen  []sentRequest
}

type sentRequest struct {
	body, again   string
	bodyType      string // set when it is not NewRequestWithContext's
	length        int64
	noBody, empty bool
}

func (rt *recordRT) RoundTrip(req *http.Request) (*http.Response, error) {
	s := sentRequest{length: req.ContentLength, noBody: req.Body == nil, empty: req.Body == http.NoBody}
	// The body's type is the one http.NewRequestWithContext gives a
	// *bytes.Reader: net/http writes such in-memory bodies with their
	// headers in one write (it flushes the headers first for any other).
	if ref, _ := http.NewRequest("POST", "/", bytes.NewReader([]byte("x"))); req.Body != nil && req.Body != http.NoBody &&
		reflect.TypeOf(req.Body) != reflect.TypeOf(ref.Body) {
		s.bodyType = reflect.TypeOf(req.Body).String()
	}
	if req.Body != nil {
		b, _ := io.ReadAll(req.Body)
		req.Body.Close()
		s.body = string(b)
	}
	if req.GetBody != nil {
		rc, _ := req.GetBody()
		b, _ := io.ReadAll(rc)
		s.again = string(b)
	}
	rt.seen = append(rt.seen, s)
	code := http.StatusOK
	if len(rt.seen) <= rt.fails {
		code = http.StatusInternalServerError
	}
	return &http.Response{StatusCode: code, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(nil)), Request: req}, nil
}

// TestCallerRequestBody: every attempt of a call, the retries too, sends
// the body whole with its length and a GetBody that reads it again, as
// http.NewRequestWithContext makes them from a *bytes.Reader (the body of
// the same type); an empty body is http.NoBody and a nil one none.
func TestCallerRequestBody(t *testing.T) {
	for _, tc := range []struct {
		name string
		body []byte
		want sentRequest
	}{
		{"json", []byte(`{"model":"m","messages":[]}`), sentRequest{body: `{"model":"m","messages":[]}`, again: `{"model":"m","messages":[]}`, length: 27}},
		{"empty", []byte{}, sentRequest{empty: true}},
		{"none", nil, sentRequest{noBody: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := &recordRT{fails: 2}
			cfg := Config{HTTPClient: &http.Client{Transport: rt}, Retry: RetryPolicy{MaxAttempts: 3},
				Sleep: func(context.Context, time.Duration) error { return nil }}
			c := cfg.callers()("openai")
			call, err := c.post(context.Background(), "http://upstream.test/v1/chat/completions", tc.body, false, func(http.Header) {})
			if err != nil {
				t.Fatal(err)
			}
			call.close()
			if len(rt.seen) != 3 {
				t.Fatalf("%d attempts, want 3", len(rt.seen))
			}
			for i, s := range rt.seen {
				if s != tc.want {
					t.Fatalf("attempt %d sent %+v, want %+v", i+1, s, tc.want)
				}
			}
		})
	}
}

// BenchmarkCallerCallAllocs: the allocations of one upstream call past
// http.Client.Do with a configured key (the canned transport's own answer
// included): the request's body reader lives in the call's state and the
// egress label is boxed once per provider and attached in the call's state
// (netguard.Label.In; http.NewRequestWithContext with a *bytes.Reader and
// netguard.WithFeature: 18, then 16; the timeout timer taken from a pool,
// callTimer: 13; its end a method, callState.end: 12 on Go 1.26).
func BenchmarkCallerCallAllocs(b *testing.B) {
	body := []byte(`{"model":"m","messages":[]}`)
	c := testCaller(&http.Client{Transport: cannedRT{}}, "sk-configured")
	set := func(h http.Header) { c.setBearer(h, "sk-configured") }
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		call, err := c.post(ctx, "http://upstream.test/v1/chat/completions", body, false, set)
		if err != nil {
			b.Fatal(err)
		}
		call.close()
	}
}
