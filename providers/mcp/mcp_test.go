package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/mcp"
	"github.com/hearth-dev/hearth/providers/mcp/mcptest"
	"github.com/hearth-dev/hearth/providers/netguard"
)

func connector(cfg mcp.Config) *mcp.Connector {
	cfg.Policy = netguard.Policy{AllowLoopback: true}
	return mcp.New(cfg)
}

func TestConnectListCall(t *testing.T) {
	cases := []struct {
		name, transport, path string
	}{
		{"streamable", mcptest.Streamable, "/mcp"},
		{"sse at /sse", mcptest.SSE, "/sse"},
		// Not named like an SSE endpoint: reached by the fallback after streamable HTTP fails.
		{"sse fallback", mcptest.SSE, "/events"},
		// Named like SSE but streamable: reached by the fallback the other way.
		{"streamable at /sse", mcptest.Streamable, "/sse"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := mcptest.Start(t, mcptest.Options{Transport: tc.transport, Path: tc.path})
			c := connector(mcp.Config{})
			ctx := context.Background()
			sess, err := c.Connect(ctx, engine.MCPServer{Name: "calc", Type: "url", URL: srv.URL,
				AuthorizationToken: "tok-secret-123", CustomHeaders: map[string]string{"X-Team": "blue"}})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			tools, err := sess.Tools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]engine.RemoteTool{}
			for _, tl := range tools {
				names[tl.Name] = tl
			}
			for _, want := range []string{"add", "echo", "fail", "slow", "get.weather", "together"} {
				if _, ok := names[want]; !ok {
					t.Fatalf("tool %q not listed: %v", want, names)
				}
			}
			var schema map[string]any
			if err := json.Unmarshal(names["add"].InputSchema, &schema); err != nil || schema["type"] != "object" {
				t.Fatalf("add schema = %s", names["add"].InputSchema)
			}
			res, err := sess.Call(ctx, "add", json.RawMessage(`{"a":2,"b":3}`))
			if err != nil || res.IsError || res.Text != "5" {
				t.Fatalf("add = %+v, %v", res, err)
			}
			res, err = sess.Call(ctx, "fail", json.RawMessage(`{}`))
			if err != nil || !res.IsError || !strings.Contains(res.Text, "boom") {
				t.Fatalf("fail = %+v, %v", res, err)
			}
			res, err = sess.Call(ctx, "nope", json.RawMessage(`{}`))
			if err != nil || !res.IsError {
				t.Fatalf("unknown tool = %+v, %v", res, err)
			}
			hs := srv.Headers()
			if len(hs) == 0 {
				t.Fatal("no requests recorded")
			}
			for _, h := range hs {
				if h.Get("Authorization") != "Bearer tok-secret-123" || h.Get("X-Team") != "blue" {
					t.Fatalf("request headers = %v", h)
				}
			}
		})
	}
}

func TestConnectErrors(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL + "/mcp"
	down.Close()
	unauthorized := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	defer unauthorized.Close()
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // the server notices a closed connection only after the body is read
		<-r.Context().Done()
	}))
	defer hang.Close()
	ok := mcptest.Start(t, mcptest.Options{})

	cases := []struct {
		name   string
		policy netguard.Policy
		url    string
		code   string
		msg    string
	}{
		{"down", netguard.Policy{AllowLoopback: true}, downURL, engine.CodeUpstream, "unreachable"},
		{"policy refuses loopback", netguard.Policy{}, ok.URL, engine.CodeBadRequest, "outbound address policy"},
		{"401", netguard.Policy{AllowLoopback: true}, unauthorized.URL + "/mcp?key=query-secret", engine.CodeBadRequest, "HTTP 401"},
		{"404", netguard.Policy{AllowLoopback: true}, notFound.URL + "/mcp", engine.CodeUpstream, "HTTP 404"},
		{"timeout", netguard.Policy{AllowLoopback: true}, hang.URL + "/mcp", engine.CodeUpstreamTimeout, "within"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// Only the hanging server needs a short deadline; the others
			// answer at once, and a loaded machine must not turn their
			// answers into time-outs.
			timeout := time.Minute
			if tc.name == "timeout" {
				timeout = 300 * time.Millisecond
			}
			c := mcp.New(mcp.Config{Policy: tc.policy, ConnectTimeout: timeout})
			_, err := c.Connect(context.Background(), engine.MCPServer{Name: "tools-1", Type: "url", URL: tc.url,
				AuthorizationToken: "tok-secret-123"})
			if err == nil {
				t.Fatal("connected")
			}
			var e *engine.Error
			if !asError(err, &e) || e.Code != tc.code || !strings.Contains(e.Message, `"tools-1"`) || !strings.Contains(e.Message, tc.msg) {
				t.Fatalf("err = %v (code %s)", err, engine.ErrorCode(err))
			}
			if full := err.Error(); strings.Contains(full, "tok-secret-123") || strings.Contains(full, "query-secret") {
				t.Fatalf("error leaks a secret: %s", full)
			}
		})
	}
}

func TestCallTimeout(t *testing.T) {
	srv := mcptest.Start(t, mcptest.Options{})
	c := connector(mcp.Config{CallTimeout: 100 * time.Millisecond})
	sess, err := c.Connect(context.Background(), engine.MCPServer{Name: "s", Type: "url", URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	// The tool sleeps 3 s, far past the call's 100 ms: a time-out error
	// (not the tool's "done") shows the call gave up rather than waited.
	_, err = sess.Call(context.Background(), "slow", json.RawMessage(`{"ms":3000}`))
	if engine.ErrorCode(err) != engine.CodeUpstreamTimeout {
		t.Fatalf("err = %v after %s", err, time.Since(start))
	}
	start = time.Now()
	sess.Close()
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("Close took %s", d)
	}
}

func asError(err error, e **engine.Error) bool {
	for err != nil {
		if x, ok := err.(*engine.Error); ok {
			*e = x
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}
