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
	"testing"
	"time"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/index"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/crawl"
	"github.com/hearth-dev/hearth/providers/images"
	"github.com/hearth-dev/hearth/providers/mcp"
	"github.com/hearth-dev/hearth/providers/netguard"
	"github.com/hearth-dev/hearth/providers/search"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/metrics"
)

// AdminKey is the user key of the "admin" user every test server starts with.
const AdminKey = "hth_user_testadminkey0000000000000000"

// Server is a running test server.
type Server struct {
	*server.Server
	URL      string
	Store    *blob.Store
	Accounts *engine.Accounts
	Keysets  *engine.Keysets
	Metrics  *metrics.Metrics
	// Memory is the memory engine (ingestion workers run); Index its search index.
	Memory *memory.Service
	Index  *index.Manager
	// RunLog records runs (nil when an option supplied its own Runner).
	RunLog *engine.RunLog
	HTTP   *httptest.Server
	t      testing.TB
}

// Option adjusts the config, deps or provider config before the server is built.
type Option func(*server.Config, *server.Deps, *providers.Config)

// WithConfig adjusts the server config.
func WithConfig(f func(*server.Config)) Option {
	return func(c *server.Config, _ *server.Deps, _ *providers.Config) { f(c) }
}

// WithProvider points a provider at a base URL (a fake upstream) with an
// optional server-wide key.
func WithProvider(name, baseURL, apiKey string) Option {
	return func(_ *server.Config, _ *server.Deps, p *providers.Config) {
		p.Providers[name] = providers.ProviderConfig{BaseURL: baseURL, APIKey: apiKey}
	}
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

// WithTools wires the web search and crawl services. It reads the outbound
// policy and provider settings as earlier options left them, so put it
// after WithConfig.
func WithTools(tc Tools) Option {
	return func(c *server.Config, d *server.Deps, p *providers.Config) {
		d.Tools = NewTools(tc, *p, c.Outbound)
	}
}

// NewTools builds the tools service the way main.go does, over tc's URLs.
func NewTools(tc Tools, pcfg providers.Config, outbound netguard.Policy) *engine.Tools {
	offline := func(u string) string {
		if u == "" {
			return "http://127.0.0.1:1"
		}
		return u
	}
	fc := crawl.NewFirecrawl(offline(tc.FirecrawlURL), pcfg)
	fc.PollInterval = tc.FirecrawlPoll
	if fc.PollInterval <= 0 {
		fc.PollInterval = 10 * time.Millisecond
	}
	return engine.NewTools(
		map[string]engine.WebSearcher{"exa": search.NewExa(offline(tc.ExaURL), pcfg)},
		map[string]engine.Crawler{
			"spider":    crawl.NewSpider(offline(tc.SpiderURL), pcfg),
			"firecrawl": fc,
			"hearth":    crawl.NewBuiltin(outbound, tc.CrawlLimits, quietLogger()),
		})
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

// StartDir is Start on a given data dir (for restart tests).
func StartDir(t testing.TB, dir string, opts ...Option) *Server {
	t.Helper()
	store := blob.New(blob.Options{Dir: dir, Logger: quietLogger()})
	if err := store.Open(); err != nil {
		t.Fatal(err)
	}
	accounts := engine.NewAccounts(store)
	if _, _, err := accounts.Bootstrap(context.Background(), "admin", AdminKey); err != nil {
		t.Fatal(err)
	}
	hts := httptest.NewUnstartedServer(nil)
	url := "http://" + hts.Listener.Addr().String()
	cfg := server.Config{PublicURL: url, Version: "test", Logger: quietLogger(),
		// Tests run every outside service on loopback.
		Outbound: netguard.Policy{AllowLoopback: true}}
	pcfg := OfflineProviders()
	deps := server.Deps{Store: store, Accounts: accounts, Backup: store.Backup, Metrics: metrics.New("test")}
	for _, o := range opts {
		o(&cfg, &deps, &pcfg)
	}
	if deps.Providers == nil {
		reg, err := providers.New(pcfg)
		if err != nil {
			t.Fatal(err)
		}
		deps.Providers = engine.InstrumentProviders(reg, deps.Metrics)
	}
	if deps.Keysets == nil {
		keysets, err := engine.NewKeysets(store, deps.Providers, []byte("hearth-test-secret-32-bytes-long"))
		if err != nil {
			t.Fatal(err)
		}
		deps.Keysets = keysets
	}
	idx, mem := startMemory(t, dir, url, &deps)
	if deps.Pipes == nil {
		deps.Pipes = engine.NewPipes(engine.PipesConfig{Store: store, Accounts: accounts, Keysets: deps.Keysets, Providers: deps.Providers, Memories: mem})
	}
	if deps.Threads == nil {
		deps.Threads = engine.NewThreads(store)
	}
	var runLog *engine.RunLog
	if deps.Runner == nil {
		runLog = engine.NewRunLog(store, deps.Providers, quietLogger())
		deps.Runner = engine.NewRunner(engine.RunnerConfig{Pipes: deps.Pipes, Threads: deps.Threads, Keysets: deps.Keysets,
			Providers: deps.Providers, Memories: mem, Retriever: mem, RunLog: runLog, Logger: quietLogger()})
	}
	if deps.Images == nil {
		models, err := images.New(pcfg, cfg.Outbound.Client(10*time.Second, 5))
		if err != nil {
			t.Fatal(err)
		}
		deps.Images = engine.NewImages(models, deps.Keysets)
	}
	if deps.Tools == nil {
		deps.Tools = NewTools(Tools{}, pcfg, cfg.Outbound)
	}
	if deps.Agent == nil {
		var tools engine.ToolServers = mcp.New(mcp.Config{Policy: cfg.Outbound, Version: "test"})
		if deps.Metrics != nil {
			tools = engine.InstrumentToolServers(tools, deps.Metrics)
		}
		deps.Agent = engine.NewAgent(engine.AgentOptions{Providers: deps.Providers, Keysets: deps.Keysets, Tools: tools})
	}
	srv, err := server.New(cfg, deps)
	if err != nil {
		t.Fatal(err)
	}
	hts.Config.Handler = srv.Handler()
	hts.Start()
	ts := &Server{Server: srv, URL: url, Store: store, Accounts: accounts, Keysets: deps.Keysets,
		Metrics: deps.Metrics, Memory: mem, Index: idx, RunLog: runLog, HTTP: hts, t: t}
	t.Cleanup(ts.Stop)
	return ts
}

// Stop closes the HTTP server, stops the ingestion workers, then closes
// the index and the store; calling it twice is safe.
func (s *Server) Stop() {
	if s.HTTP != nil {
		s.HTTP.Close()
		s.HTTP = nil
		s.RunLog.Close()
		if s.Memory != nil {
			s.Memory.Close()
		}
		if s.Index != nil {
			s.Index.Close()
		}
		s.Store.Close()
	}
}

func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, nil))
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
