// Package servertest starts the real Hearth server in-process on a temporary
// data dir, for tests of this repo and of applications built on Hearth.
package servertest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/engine/parse/sandbox"
	"github.com/hearth-dev/hearth/index"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/crawl"
	"github.com/hearth-dev/hearth/providers/netguard"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/app"
	"github.com/hearth-dev/hearth/server/metrics"
)

// AdminKey is the user key of the "admin" user every test server starts with.
const AdminKey = "hth_user_testadminkey0000000000000000"

// Server is a running test server.
type Server struct {
	*server.Server
	// App is the application, built by app.New as hearth serve builds it.
	App      *app.App
	URL      string
	Store    app.Store
	Accounts *engine.Accounts
	Keysets  *engine.Keysets
	Metrics  *metrics.Metrics
	// Memory is the memory engine (ingestion workers run); Index its search index.
	Memory *memory.Service
	Index  *index.Manager
	// RunLog records runs.
	RunLog *engine.RunLog
	HTTP   *httptest.Server
	t      testing.TB
	// dir is the data dir the server was started on (Crash copies it).
	dir string
}

// Option adjusts the application's config (overrides included) before it
// is built.
type Option func(*app.Config)

// WithConfig adjusts the server config.
func WithConfig(f func(*server.Config)) Option {
	return func(c *app.Config) { f(&c.HTTP) }
}

// WithOutbound sets the policy for user-supplied URLs (MCP servers,
// crawls); test servers start with loopback allowed.
func WithOutbound(p netguard.Policy) Option {
	return func(c *app.Config) { c.Outbound = p }
}

// WithEgress sets the outbound mode and host list (HEARTH_OUTBOUND and
// HEARTH_OUTBOUND_HOSTS); test servers start in open mode.
func WithEgress(mode string, allow ...string) Option {
	return func(c *app.Config) { c.OutboundMode, c.OutboundHosts = mode, allow }
}

// WithProvider points a provider at a base URL (a fake upstream) with an
// optional server-wide key.
func WithProvider(name, baseURL, apiKey string) Option {
	return func(c *app.Config) {
		c.Providers.Providers[name] = providers.ProviderConfig{BaseURL: baseURL, APIKey: apiKey}
	}
}

// WithProviders sets the provider registry's settings (timeouts, retries).
func WithProviders(f func(*providers.Config)) Option {
	return func(c *app.Config) { f(&c.Providers) }
}

// WithProviderOverride replaces the provider registry by what f returns
// for it (a fake, or a wrapper around the registry).
func WithProviderOverride(f func(registry engine.Providers) engine.Providers) Option {
	return func(c *app.Config) { c.Overrides.Providers = f }
}

// WithServices runs f on the built application before the HTTP server is
// built; f may replace services in a.Deps.
func WithServices(f func(a *app.App)) Option {
	return func(c *app.Config) { c.Overrides.Services = append(c.Overrides.Services, f) }
}

// Tools points the web search and crawl services at fakes (see
// providers/fake: NewExa, NewSpider, NewFirecrawl). Empty URLs stay
// offline (a closed loopback port).
type Tools struct {
	ExaURL, SpiderURL, FirecrawlURL string
	// CrawlLimits bound the built-in crawler (zero fields: its defaults).
	CrawlLimits crawl.Limits
	// FirecrawlPoll is the Firecrawl status poll interval (default 10 ms).
	FirecrawlPoll time.Duration
}

// WithTools points the web search and crawl services at tc's URLs.
func WithTools(tc Tools) Option {
	return func(c *app.Config) {
		c.ExaBaseURL, c.SpiderBaseURL, c.FirecrawlBaseURL = offline(tc.ExaURL), offline(tc.SpiderURL), offline(tc.FirecrawlURL)
		c.CrawlLimits = tc.CrawlLimits
		if tc.FirecrawlPoll > 0 {
			c.FirecrawlPoll = tc.FirecrawlPoll
		}
	}
}

// offline maps an empty URL to a closed loopback port.
func offline(u string) string {
	if u == "" {
		return "http://127.0.0.1:1"
	}
	return u
}

// OfflineProviders is the provider config every test server starts from:
// every built-in provider points at a closed loopback port, so a test that
// forgets to set up a fake fails fast instead of reaching the internet.
// Retries are fast.
func OfflineProviders() providers.Config {
	pc := providers.Config{Providers: map[string]providers.ProviderConfig{},
		Retry: providers.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, MaxRetryAfter: 50 * time.Millisecond}}
	for _, p := range providers.KnownProviders() {
		pc.Providers[p] = providers.ProviderConfig{BaseURL: "http://127.0.0.1:1/v1"}
	}
	return pc
}

// Start builds and starts a server on a fresh temp data dir; it is closed
// when the test ends.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	return StartDir(t, t.TempDir(), opts...)
}

// Config returns the application config of a test server on dir served
// at url, before options: offline providers and tools, loopback allowed
// for user-supplied URLs, the sandboxed parser run by this test binary
// (see Main), no background index snapshots.
func Config(dir, url string) app.Config {
	return app.Config{
		Data: dir, Version: "test", Logger: quietLogger(),
		Secret: []byte("hearth-test-secret-32-bytes-long"), UploadSecret: UploadSecret,
		AdminLogin: "admin", AdminKey: AdminKey,
		HTTP:      server.Config{PublicURL: url, Version: "test", Logger: quietLogger()},
		Providers: OfflineProviders(),
		// Tests run every outside service on loopback.
		Outbound:   netguard.Policy{AllowLoopback: true},
		Memory:     memory.Config{IdleWait: time.Second},
		Index:      index.Options{SnapshotInterval: -1},
		Parser:     sandbox.Config{Command: parserCommand()},
		ExaBaseURL: offline(""), SpiderBaseURL: offline(""), FirecrawlBaseURL: offline(""),
		FirecrawlPoll: 10 * time.Millisecond,
	}
}

// StartDir is Start on a given data dir (for restart tests). With
// HEARTH_TEST_CLUSTER set in the test's environment, every server that no
// option put on a database runs in cluster mode on a fresh PostgreSQL
// database of its own (one per data dir, so restarts find their data):
// `HEARTH_TEST_CLUSTER=1 go test ./server/` runs the suite on PostgreSQL.
func StartDir(t testing.TB, dir string, opts ...Option) *Server {
	t.Helper()
	hts := httptest.NewUnstartedServer(nil)
	url := "http://" + hts.Listener.Addr().String()
	cfg := Config(dir, url)
	for _, o := range opts {
		o(&cfg)
	}
	if os.Getenv("HEARTH_TEST_CLUSTER") != "" && cfg.DatabaseURL == "" {
		cfg.DatabaseURL = clusterDB(t, dir)
	}
	a, err := app.New(cfg)
	if err != nil {
		hts.Close()
		t.Fatal(err)
	}
	hts.Config.Handler = a.Server.Handler()
	hts.Listener = a.Server.Listen(hts.Listener, hts.Config)
	hts.Start()
	ts := &Server{Server: a.Server, App: a, URL: url, dir: dir, Store: a.Store, Accounts: a.Deps.Accounts, Keysets: a.Deps.Keysets,
		Metrics: a.Metrics, Memory: a.Memory, Index: a.Index, RunLog: a.RunLog, HTTP: hts, t: t}
	t.Cleanup(ts.Stop)
	return ts
}

// Stop closes the HTTP server, stops the ingestion workers, then closes
// the index and the store; calling it twice is safe.
func (s *Server) Stop() {
	if s.HTTP != nil {
		s.HTTP.Close()
		s.HTTP = nil
		s.App.Close(context.Background())
	}
}

func quietLogger() *slog.Logger {
	return slog.New(server.NewLogHandler(io.Discard, false, nil))
}

// Response is a finished HTTP exchange.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v, failing the test on error.
func (r *Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// Do sends a request with an optional bearer key. body may be nil, a
// []byte/string sent as-is, or any value sent as JSON.
func (s *Server) Do(method, path, key string, body any, headers ...string) *Response {
	s.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = bytes.NewReader([]byte(b))
	default:
		j, err := json.Marshal(b)
		if err != nil {
			s.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: out}
}

// UserWithKey creates a user and returns a fresh key for it.
func (s *Server) UserWithKey(login string) string {
	s.t.Helper()
	ctx := context.Background()
	if _, err := s.Accounts.CreateUser(ctx, login); err != nil {
		s.t.Fatal(err)
	}
	_, key, err := s.Accounts.CreateKey(ctx, login, "test")
	if err != nil {
		s.t.Fatal(err)
	}
	return key
}

// OrgWithKey creates an org owned by owner and returns an org key.
func (s *Server) OrgWithKey(login, owner string) string {
	s.t.Helper()
	ctx := context.Background()
	if _, err := s.Accounts.CreateOrg(ctx, login, owner); err != nil {
		s.t.Fatal(err)
	}
	_, key, err := s.Accounts.CreateKey(ctx, login, "test")
	if err != nil {
		s.t.Fatal(err)
	}
	return key
}
