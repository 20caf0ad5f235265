// Package mcp connects agent runs to remote MCP servers with the official Go
// MCP SDK. It implements engine.ToolServers.
//
// Transport rule: a server is first tried over streamable HTTP (the current
// MCP transport) and, when it answers that attempt with an HTTP 4xx other
// than 401/403 (it speaks HTTP but not that transport), over the older
// HTTP+SSE transport, as the MCP specification's backwards-compatibility
// section advises. A URL whose path ends in "/sse" is tried in the opposite
// order. Every request goes through the operator's outbound address policy
// (netguard), carries the run's custom headers and, when given, the
// authorization token as "Authorization: Bearer"; redirects are refused so
// the token cannot be forwarded to another host, and so is any request to
// another origin (scheme, host and port) than the configured URL's, such as
// the message endpoint a legacy SSE server names in its "endpoint" event.
// The token is never stored or logged, and URLs are shown without their
// query string.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/telemetry"
	"github.com/hearth-dev/hearth/providers/netguard"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of Config.
const (
	DefaultConnectTimeout = 15 * time.Second
	DefaultCallTimeout    = 60 * time.Second
	// MaxToolsPerServer bounds how many tools one server may list.
	MaxToolsPerServer = 256
)

// Config configures the connector.
type Config struct {
	// Policy guards every outbound connection.
	Policy netguard.Policy
	// ConnectTimeout bounds connecting, the MCP handshake and listing tools.
	ConnectTimeout time.Duration
	// CallTimeout bounds each tool call.
	CallTimeout time.Duration
	// Version is sent as the client version in the MCP handshake.
	Version string
}

// Connector opens MCP sessions for agent runs.
type Connector struct {
	cfg  Config
	base http.RoundTripper
}

var _ engine.ToolServers = (*Connector)(nil)

// New returns a connector; it opens no connection until Connect.
func New(cfg Config) *Connector {
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = DefaultCallTimeout
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	return &Connector{cfg: cfg, base: cfg.Policy.Transport()}
}

// Connect opens a session with one server and completes the MCP handshake.
func (c *Connector) Connect(ctx context.Context, s engine.MCPServer) (engine.ToolSession, error) {
	u, err := url.Parse(s.URL)
	if err != nil {
		return nil, engine.FieldError("mcp_servers", "MCP server %q: url is not valid", s.Name)
	}
	kinds := []string{"streamable", "sse"}
	if strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/sse") {
		kinds = []string{"sse", "streamable"}
	}
	var first error
	for _, kind := range kinds {
		sess, rt, err := c.connect(ctx, kind, s)
		if err == nil {
			return sess, nil
		}
		cerr := c.classify(ctx, s, rt, err)
		if errors.Is(rt.err(), errOtherOrigin) {
			return nil, cerr
		}
		if first == nil {
			first = cerr
		}
		if st := rt.status(); st < 400 || st >= 500 || st == http.StatusUnauthorized || st == http.StatusForbidden {
			break
		}
	}
	return nil, first
}

// connect runs one transport's handshake under the connect timeout. The
// session's context lives until Close (an SSE session's event stream is
// bound to it), so the timeout cancels it only while connecting.
func (c *Connector) connect(ctx context.Context, kind string, s engine.MCPServer) (*session, *headerTransport, error) {
	sctx, cancel := context.WithCancel(ctx)
	rt := &headerTransport{base: c.base, headers: s.CustomHeaders, token: s.AuthorizationToken, life: sctx, origin: originOf(s.URL)}
	hc := &http.Client{Transport: rt, CheckRedirect: func(*http.Request, []*http.Request) error {
		return errors.New("redirects are not followed")
	}}
	var timedOut atomic.Bool
	timer := time.AfterFunc(c.cfg.ConnectTimeout, func() { timedOut.Store(true); cancel() })
	var t sdk.Transport
	if kind == "sse" {
		t = &sdk.SSEClientTransport{Endpoint: s.URL, HTTPClient: hc}
	} else {
		t = &sdk.StreamableClientTransport{Endpoint: s.URL, HTTPClient: hc, DisableStandaloneSSE: true, MaxRetries: 2}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "hearth", Version: c.cfg.Version}, nil)
	cs, err := client.Connect(sctx, t, nil)
	if err == nil {
		var tools []engine.RemoteTool
		tools, err = listTools(sctx, cs)
		if err == nil && timer.Stop() {
			return &session{server: s, cs: cs, cancel: cancel, callTimeout: c.cfg.CallTimeout, tools: tools}, rt, nil
		}
		cs.Close()
	}
	timer.Stop()
	cancel()
	if timedOut.Load() {
		return nil, rt, context.DeadlineExceeded
	}
	return nil, rt, err
}

func listTools(ctx context.Context, cs *sdk.ClientSession) ([]engine.RemoteTool, error) {
	var out []engine.RemoteTool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		if len(out) == MaxToolsPerServer {
			return nil, fmt.Errorf("lists more than %d tools", MaxToolsPerServer)
		}
		rt := engine.RemoteTool{Name: t.Name, Description: t.Description}
		if t.InputSchema != nil {
			if b, err := json.Marshal(t.InputSchema); err == nil {
				rt.InputSchema = b
			}
		}
		out = append(out, rt)
	}
	return out, nil
}

// classify turns a failed connection into an engine error naming the
// server: refused by policy (400), bad credentials (400), timeout (504),
// anything else (502). Messages never include the token or the URL's query.
func (c *Connector) classify(ctx context.Context, s engine.MCPServer, rt *headerTransport, err error) error {
	safe := safeURL(s.URL)
	cause := errors.New(redact(err.Error(), s))
	if rerr := rt.err(); rerr != nil && errors.Is(rerr, errOtherOrigin) {
		return &engine.Error{Code: engine.CodeBadRequest, Field: "mcp_servers",
			Message: fmt.Sprintf("MCP server %q (%s): %s; Hearth sends the authorization token and custom headers only to the origin of the configured URL", s.Name, safe, redact(rerr.Error(), s))}
	}
	if r, ok := netguard.AsRefusal(rt.err()); ok {
		return &engine.Error{Code: engine.CodeBadRequest, Field: "mcp_servers",
			Message: fmt.Sprintf("MCP server %q (%s): %s", s.Name, safe, r.Error())}
	}
	if rerr := rt.err(); rerr != nil && errors.Is(rerr, netguard.ErrRefused) {
		return &engine.Error{Code: engine.CodeBadRequest, Field: "mcp_servers",
			Message: fmt.Sprintf("MCP server %q (%s): the destination is refused by the server's outbound address policy (private, loopback and link-local addresses need HEARTH_OUTBOUND_ALLOW_PRIVATE or HEARTH_OUTBOUND_ALLOW)", s.Name, safe)}
	}
	switch st := rt.status(); {
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		return engine.Wrap(cause, engine.CodeUpstreamTimeout, "MCP server %q (%s) did not complete the MCP handshake within %s", s.Name, safe, c.cfg.ConnectTimeout)
	case ctx.Err() != nil:
		return engine.Wrap(ctx.Err(), engine.CodeUpstreamTimeout, "agent run cancelled while connecting to MCP server %q", s.Name)
	case st == http.StatusUnauthorized || st == http.StatusForbidden:
		return engine.Wrap(cause, engine.CodeBadRequest, "MCP server %q (%s) refused the request with HTTP %d: check authorization_token and custom_headers", s.Name, safe, st)
	case st >= 400:
		return engine.Wrap(cause, engine.CodeUpstream, "MCP server %q (%s) answered HTTP %d and could not be connected over streamable HTTP or SSE", s.Name, safe, st)
	case rt.err() != nil:
		return engine.Wrap(cause, engine.CodeUpstream, "MCP server %q (%s) is unreachable: %s", s.Name, safe, redact(rt.err().Error(), s))
	}
	return engine.Wrap(cause, engine.CodeUpstream, "could not connect to MCP server %q (%s): %s", s.Name, safe, cause)
}

// safeURL is the URL without user info, query or fragment.
func safeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(invalid URL)"
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}

// redact removes the full URL (whose query may carry secrets), the token
// and custom header values from an error text.
func redact(msg string, s engine.MCPServer) string {
	if s.URL != "" {
		msg = strings.ReplaceAll(msg, s.URL, safeURL(s.URL))
		if q := strings.IndexByte(s.URL, '?'); q >= 0 {
			msg = strings.ReplaceAll(msg, s.URL[q:], "")
		}
	}
	if s.AuthorizationToken != "" {
		msg = strings.ReplaceAll(msg, s.AuthorizationToken, "[redacted]")
	}
	for _, v := range s.CustomHeaders {
		if len(v) >= 4 {
			msg = strings.ReplaceAll(msg, v, "[redacted]")
		}
	}
	return msg
}

// headerTransport adds the run's headers and bearer token to every request
// and remembers the last HTTP status or transport error, to classify
// failures. Every request is also cancelled when life ends (the SDK detaches
// some requests from the caller's context; a session that is closed or
// timed out must not leave them running).
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
	token   string
	life    context.Context
	// origin is the configured URL's origin; requests elsewhere are refused.
	origin string

	mu      sync.Mutex
	last    int
	lastErr error
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if o := originOf(req.URL.String()); o != t.origin {
		err := fmt.Errorf("%w: the server asked Hearth to send requests to %s", errOtherOrigin, o)
		t.mu.Lock()
		t.lastErr = err
		t.mu.Unlock()
		return nil, err
	}
	ctx, cancel := context.WithCancel(req.Context())
	stop := context.AfterFunc(t.life, cancel)
	req = req.Clone(ctx)
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	if t.token != "" {
		req.Header.Set("Authorization", "Bearer "+t.token)
	}
	// A traced tool call names its execute_tool span as the MCP server's
	// parent (W3C traceparent); nothing is sent with tracing off.
	if sp := telemetry.FromContext(req.Context()); sp != nil {
		req.Header.Set("traceparent", sp.Traceparent())
	}
	resp, err := t.base.RoundTrip(req)
	t.mu.Lock()
	if err != nil {
		t.lastErr = err
	} else {
		t.last = resp.StatusCode
	}
	t.mu.Unlock()
	if err != nil {
		stop()
		cancel()
		return nil, err
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, done: func() { stop(); cancel() }}
	return resp, nil
}

// cancelBody releases a request's context when its body is closed.
type cancelBody struct {
	io.ReadCloser
	once sync.Once
	done func()
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.done)
	return err
}

func (t *headerTransport) reset() {
	t.mu.Lock()
	t.last, t.lastErr = 0, nil
	t.mu.Unlock()
}

func (t *headerTransport) status() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last
}

func (t *headerTransport) err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lastErr
}

// errOtherOrigin refuses a request to another origin than the server's.
var errOtherOrigin = errors.New("its endpoint is on another origin")

// originOf is scheme://host:port of a URL, lowercased, with the scheme's
// default port made explicit, so equal origins compare equal (RFC 6454).
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme) + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}
