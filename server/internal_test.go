package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

func newInternal(t *testing.T) (*Server, *engine.Accounts) {
	t.Helper()
	d := internalDeps(t)
	s, err := New(Config{PublicURL: "http://h", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, d)
	if err != nil {
		t.Fatal(err)
	}
	return s, d.Accounts
}

func TestPanicBecomesJSON500AndServerKeepsServing(t *testing.T) {
	s, _ := newInternal(t)
	s.echo.GET("/boom", func(echo.Context) error { panic("kaboom: secret internals") })
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/boom")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var body ErrorBody5xx
	if err := json.Unmarshal(b, &body); err != nil || resp.StatusCode != 500 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	if body.Success || body.Code != engine.CodeInternal || body.Error != "internal server error" || strings.Contains(string(b), "kaboom") {
		t.Fatalf("body %s", b)
	}
	resp, err = http.Get(ts.URL + "/health")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("server stopped serving after a panic: %v", err)
	}
	resp.Body.Close()
}

func TestUpstreamErrorIs5xxShape(t *testing.T) {
	s, _ := newInternal(t)
	s.echo.GET("/up", func(echo.Context) error {
		return engine.Errorf(engine.CodeUpstream, "openai answered 500")
	})
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/up", nil))
	var body ErrorBody5xx
	json.Unmarshal(rec.Body.Bytes(), &body)
	if rec.Code != 502 || body.Error != "openai answered 500" || body.Code != engine.CodeUpstream {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
}

func TestRouteKeyKinds(t *testing.T) {
	s, acc := newInternal(t)
	ctx := context.Background()
	mustDo := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := acc.CreateUser(ctx, "alice")
	mustDo(err)
	_, err = acc.CreateOrg(ctx, "acme", "alice")
	mustDo(err)
	_, err = acc.CreateOrg(ctx, "other", "alice")
	mustDo(err)
	_, userKey, err := acc.CreateKey(ctx, "alice", "")
	mustDo(err)
	_, orgKey, err := acc.CreateKey(ctx, "acme", "")
	mustDo(err)
	var pipeKey string
	mustDo(s.deps.Store.Update(ctx, func(tx engine.Tx) error {
		_, pipeKey, err = acc.CreatePipeKeyTx(context.Background(), tx, "alice", "pipe_1", "p")
		return err
	}))
	ok := func(c echo.Context) error { return c.JSON(200, map[string]string{"owner": principal(c).Owner}) }
	s.echo.GET("/t/owner", ok, s.authenticate(AuthOwner))
	s.echo.GET("/t/user", ok, s.authenticate(AuthUser))
	s.echo.GET("/t/org/:org", ok, s.authenticate(AuthOrg))
	s.echo.GET("/t/run", ok, s.authenticate(AuthRun))
	s.echo.GET("/t/pipe", ok, s.authenticate(AuthPipe))

	cases := []struct {
		path, key string
		want      int
	}{
		{"/t/owner", userKey, 200}, {"/t/owner", orgKey, 200}, {"/t/owner", pipeKey, 403}, {"/t/owner", "", 401},
		{"/t/user", userKey, 200}, {"/t/user", orgKey, 403}, {"/t/user", pipeKey, 403},
		{"/t/org/acme", orgKey, 200}, {"/t/org/ACME", orgKey, 200}, {"/t/org/other", orgKey, 403}, {"/t/org/acme", userKey, 403},
		{"/t/run", pipeKey, 200}, {"/t/run", userKey, 200}, {"/t/run", orgKey, 200},
		{"/t/pipe", pipeKey, 200}, {"/t/pipe", userKey, 403},
	}
	for _, tc := range cases {
		req := httptest.NewRequest("GET", tc.path, nil)
		if tc.key != "" {
			req.Header.Set("Authorization", "Bearer "+tc.key)
		}
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		if rec.Code != tc.want {
			t.Errorf("%s with %.12s: %d, want %d (%s)", tc.path, tc.key, rec.Code, tc.want, rec.Body)
		}
	}
}

func TestPathParamValidation(t *testing.T) {
	s, _ := newInternal(t)
	s.echo.GET("/p/:name", func(c echo.Context) error {
		v, err := pathParam(c, "name")
		if err != nil {
			return err
		}
		return c.String(200, v)
	})
	cases := map[string]int{
		"/p/my%20doc.pdf": 200, "/p/ok-name": 200, "/p/a%2Fb": 400, "/p/..": 400, "/p/%2E%2E": 400, "/p/a%00b": 400, "/p/a%5Cb": 400,
	}
	for path, want := range cases {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "http://h"+path, nil)
		s.Handler().ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("%s: %d, want %d (%s)", path, rec.Code, want, rec.Body)
		}
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/p/my%20doc.pdf", nil))
	if rec.Body.String() != "my doc.pdf" {
		t.Fatalf("decoded %q", rec.Body)
	}
}

func TestCloseDrainsInFlightRequests(t *testing.T) {
	s, _ := newInternal(t)
	s.cfg.Addr = "127.0.0.1:0"
	started := make(chan struct{})
	release := make(chan struct{})
	s.echo.GET("/slow", func(c echo.Context) error {
		close(started)
		<-release
		return c.String(200, "finished")
	})
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	type result struct {
		body string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := http.Get(s.URL() + "/slow")
		if err != nil {
			done <- result{err: err}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		done <- result{body: string(b)}
	}()
	<-started
	closed := make(chan error, 1)
	go func() { closed <- s.Close(context.Background()) }()
	// New connections are refused while the slow request is still running.
	for i := 0; ; i++ {
		if _, err := http.Get(s.URL() + "/health"); err != nil {
			break
		}
		if i > 200 {
			t.Fatal("server still accepts connections after Close")
		}
	}
	close(release)
	if r := <-done; r.err != nil || r.body != "finished" {
		t.Fatalf("in-flight request was cut: %+v", r)
	}
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
}
