package server

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// TestCORSFastMatchesEcho: the CORS middleware answers every request, a
// browser's or not, a preflight or not, with headers already set or added
// by the handler, exactly as echo's CORS middleware with the same policy,
// and the shared header values stay as they were.
func TestCORSFastMatchesEcho(t *testing.T) {
	type reqCase struct {
		method, origin, acrm, acrh, varyBefore string
		handlerAddsVary                        bool
	}
	var cases []reqCase
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodOptions, http.MethodDelete} {
		for _, origin := range []string{"", "https://app.example", "null"} {
			for _, vary := range []string{"", "Accept-Encoding"} {
				for _, adds := range []bool{false, true} {
					cases = append(cases, reqCase{m, origin, "POST", "authorization,content-type", vary, adds})
				}
			}
		}
	}
	serve := func(mw echo.MiddlewareFunc, rc reqCase) (*httptest.ResponseRecorder, bool) {
		e := echo.New()
		req := httptest.NewRequest(rc.method, "/v1/pipes/run", nil)
		if rc.origin != "" {
			req.Header.Set("Origin", rc.origin)
		}
		if rc.method == http.MethodOptions {
			req.Header.Set("Access-Control-Request-Method", rc.acrm)
			req.Header.Set("Access-Control-Request-Headers", rc.acrh)
		}
		rec := httptest.NewRecorder()
		if rc.varyBefore != "" {
			rec.Header().Set("Vary", rc.varyBefore)
		}
		c := e.NewContext(req, rec)
		called := false
		h := mw(func(c echo.Context) error {
			called = true
			if rc.handlerAddsVary {
				c.Response().Header().Add("Vary", "Accept")
			}
			return c.String(http.StatusOK, "ok")
		})
		if err := h(c); err != nil {
			t.Fatal(err)
		}
		return rec, called
	}
	fast, slow := cors(), middleware.CORSWithConfig(corsConfig())
	for _, rc := range cases {
		for range 2 { // the second time over values the first may have shared
			got, gotCalled := serve(fast, rc)
			want, wantCalled := serve(slow, rc)
			if got.Code != want.Code || gotCalled != wantCalled || !reflect.DeepEqual(got.Header(), want.Header()) || got.Body.String() != want.Body.String() {
				t.Fatalf("%+v:\n got %d %v %v\nwant %d %v %v", rc, got.Code, gotCalled, got.Header(), want.Code, wantCalled, want.Header())
			}
		}
	}
	if !reflect.DeepEqual(varyOrigin, []string{"Origin"}) || !reflect.DeepEqual(anyOrigin, []string{"*"}) {
		t.Fatalf("shared values changed: %v %v", varyOrigin, anyOrigin)
	}
}

// BenchmarkCORSNoOriginAllocs: a request from a non-browser client (no
// Origin) allocates nothing in the CORS middleware (Go 1.26).
func BenchmarkCORSNoOriginAllocs(b *testing.B) {
	e := echo.New()
	req := httptest.NewRequest(http.MethodPost, "/v1/pipes/run", nil)
	h := cors()(func(echo.Context) error { return nil })
	hdr := http.Header{}
	c := e.NewContext(req, nil)
	c.Response().Writer = headerOnly{hdr}
	b.ReportAllocs()
	for b.Loop() {
		clear(hdr)
		if err := h(c); err != nil {
			b.Fatal(err)
		}
	}
}

// headerOnly is a response writer that only has headers.
type headerOnly struct{ h http.Header }

func (w headerOnly) Header() http.Header       { return w.h }
func (headerOnly) Write(b []byte) (int, error) { return len(b), nil }
func (headerOnly) WriteHeader(int)             {}
