// Package mcptest runs a real MCP server, built with the official Go MCP
// SDK, on httptest, over streamable HTTP or HTTP+SSE. Tests of the MCP
// client and of agent runs use it; it records the HTTP headers and the tool
// calls it receives.
package mcptest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transports a test server can speak.
const (
	Streamable = "streamable"
	SSE        = "sse"
)

// Options configure a test server.
type Options struct {
	// Transport is Streamable (default) or SSE.
	Transport string
	// Path is the endpoint path (default "/mcp").
	Path string
}

// Call is one recorded tool call.
type Call struct {
	Tool string
	Args map[string]any
}

// Server is a running MCP test server with these tools:
//
//	add {a, b: number}   -> "<a+b>"
//	echo {text: string}  -> "<text>"
//	fail {}              -> an error result "boom: the tool failed"
//	slow {ms: number}    -> sleeps, then "done"
//	get.weather {city}   -> "sunny in <city>" (a name providers do not accept as is)
//	together {n: number} -> "together" once n calls of it are in flight at
//	                        once, "alone" after 20 s
type Server struct {
	*httptest.Server
	// URL is the MCP endpoint to put in mcp_servers[].url.
	URL string

	mu      sync.Mutex
	headers []http.Header
	calls   []Call
	// arrived counts the together calls in flight toward all, which
	// closes when the n-th arrives.
	arrived int
	all     chan struct{}
}

type addIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type echoIn struct {
	Text string `json:"text"`
}

type slowIn struct {
	MS int `json:"ms"`
}

type togetherIn struct {
	N int `json:"n"`
}

// arrive counts a together call of n and returns the channel closed once
// n have arrived.
func (s *Server) arrive(n int) chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.all == nil {
		s.all = make(chan struct{})
	}
	all := s.all
	if s.arrived++; s.arrived >= n {
		close(all)
		s.all, s.arrived = nil, 0
	}
	return all
}

type cityIn struct {
	City string `json:"city"`
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// Start starts a server; it is closed when the test ends.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	if o.Path == "" {
		o.Path = "/mcp"
	}
	s := &Server{}
	srv := sdk.NewServer(&sdk.Implementation{Name: "hearth-mcptest", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "add", Description: "Adds two numbers."},
		func(_ context.Context, _ *sdk.CallToolRequest, in addIn) (*sdk.CallToolResult, any, error) {
			s.record("add", map[string]any{"a": in.A, "b": in.B})
			return text(fmt.Sprint(in.A + in.B)), nil, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "echo", Description: "Echoes text."},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			s.record("echo", map[string]any{"text": in.Text})
			return text(in.Text), nil, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "fail", Description: "Always fails."},
		func(_ context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			s.record("fail", nil)
			return nil, nil, errors.New("boom: the tool failed")
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "slow", Description: "Sleeps."},
		func(ctx context.Context, _ *sdk.CallToolRequest, in slowIn) (*sdk.CallToolResult, any, error) {
			s.record("slow", map[string]any{"ms": in.MS})
			select {
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
			return text("done"), nil, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "together", Description: "Answers once n calls of it are in flight at once."},
		func(ctx context.Context, _ *sdk.CallToolRequest, in togetherIn) (*sdk.CallToolResult, any, error) {
			s.record("together", map[string]any{"n": in.N})
			select {
			case <-s.arrive(in.N):
				return text("together"), nil, nil
			case <-time.After(20 * time.Second):
				return text("alone"), nil, nil
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "get.weather", Description: "Weather of a city."},
		func(_ context.Context, _ *sdk.CallToolRequest, in cityIn) (*sdk.CallToolResult, any, error) {
			s.record("get.weather", map[string]any{"city": in.City})
			return text("sunny in " + in.City), nil, nil
		})
	var h http.Handler
	if o.Transport == SSE {
		h = sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	} else {
		h = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	}
	mux := http.NewServeMux()
	mux.Handle(o.Path, h)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.headers = append(s.headers, r.Header.Clone())
		s.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	s.URL = s.Server.URL + o.Path
	t.Cleanup(s.Close)
	return s
}

func (s *Server) record(tool string, args map[string]any) {
	s.mu.Lock()
	s.calls = append(s.calls, Call{Tool: tool, Args: args})
	s.mu.Unlock()
}

// Headers returns the headers of every HTTP request received so far.
func (s *Server) Headers() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]http.Header(nil), s.headers...)
}

// Calls returns the tool calls received so far.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}
