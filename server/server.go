// Package server is Hearth's HTTP layer: the route table, handlers that
// decode a request, call the engine and encode the answer, the auth
// middleware, the one error handler and the SSE writer. Echo stays inside
// this package; callers see only New, Handler, Open, Close and URL.
package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/agent"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/engine/telemetry"
	"github.com/hearth-dev/hearth/server/metrics"
	"github.com/labstack/echo/v4"
)

// Config holds the HTTP settings; server/app/config fills it from the file, env and flags.
type Config struct {
	// Addr is the listen address, e.g. ":8080".
	Addr string
	// PublicURL is the absolute URL clients reach the server at, without a
	// trailing slash; it prefixes signed upload URLs and studio links.
	PublicURL string
	// MaxBodyBytes caps JSON request bodies (default 8 MiB).
	MaxBodyBytes int64
	// MaxUploadBytes caps document uploads (default 10 MiB).
	MaxUploadBytes int64
	// MaxPackBytes caps an imported memory pack (default DefaultMaxPackBytes).
	MaxPackBytes int64
	// Version is reported by the info endpoints.
	Version string
	Logger  *slog.Logger
	// ShutdownTimeout bounds the drain of in-flight requests on Close (default 30 s).
	ShutdownTimeout time.Duration
	// MetricsOff removes /metrics from the main listener. When served there
	// it needs the admin user's key or MetricsToken as a bearer.
	MetricsOff   bool
	MetricsToken string
	// MetricsAddr, when set, serves /metrics without auth on a separate
	// listener (meant for a private interface).
	MetricsAddr string
	// RateLimitPerKey and RateLimitPerPipe are requests per minute per API
	// key and per pipe (0 = no limit); RateLimitBurst is the bucket size
	// (0 = one minute's worth).
	RateLimitPerKey  int
	RateLimitPerPipe int
	RateLimitBurst   int
	// Slow-client protection and concurrency (harden.go, admit.go); zero
	// values take the Default* constants. MaxConcurrent < 0 means no
	// limit. MaxQueued requests may wait up to QueueTimeout for one of the
	// MaxConcurrent slots, which go to the waiting clients holding fewest
	// (MaxQueued < 0: none wait).
	ReadHeaderTimeout time.Duration
	BodyIdleTimeout   time.Duration
	BodyGrace         time.Duration
	BodyMinRate       int
	WriteIdleTimeout  time.Duration
	IdleTimeout       time.Duration
	MaxConcurrent     int
	MaxQueued         int
	QueueTimeout      time.Duration
	// Per-client caps and body deadlines (admit.go, harden.go); a cap of 0
	// or less is off (the default). MaxInFlightPerKey bounds one API key's
	// requests in flight, waiting ones included, MaxInFlightPerIP those of
	// one client address without a key.
	// BodyTimeout bounds the arrival of a whole request body;
	// UploadBodyTimeout replaces it on routes whose body limit is above
	// MaxBodyBytes (uploads, /v1/parser).
	MaxInFlightPerKey int
	MaxInFlightPerIP  int
	// TurnsPerCPU bounds the admitted requests that compute at once, per
	// CPU (GOMAXPROCS), shared fairly between clients while two or more
	// have requests in flight; a request waiting on a model or a commit
	// holds none (turn.go). 0: DefaultTurnsPerCPU; < 0: no bound.
	TurnsPerCPU       int
	BodyTimeout       time.Duration
	UploadBodyTimeout time.Duration
	// Faults, when set, honours the LB-Fault request header (faults.go);
	// nil refuses it.
	Faults FaultFunc
	// IDs, when set, gives each request the IDSource its ids and created
	// timestamps come from (deterministic mode); nil keeps them random.
	IDs func() engine.IDSource
	// Tracer, when set, traces every request (otel.go); nil: off.
	Tracer *telemetry.Tracer
	// LeanOff serves every request with net/http alone, without the
	// lean path for simple requests (lean.go).
	LeanOff bool
	// AnthropicModelAliases maps bare model names of the Messages API to
	// provider:model or pipe:<name> ("*" for any other bare name); see
	// HEARTH_ANTHROPIC_MODEL_ALIASES.
	AnthropicModelAliases map[string]string
	// MCPUpstreams are the upstream MCP servers whose tools /mcp offers
	// (the MCP gateway), each with its allowed tools; see HEARTH_MCP_UPSTREAMS.
	MCPUpstreams []engine.MCPServer
}

// Deps are the engine services the handlers call. Every field is
// required; server/app builds them all (New builds nothing in their place).
type Deps struct {
	Store     engine.Store
	Accounts  *engine.Accounts
	Providers engine.Providers
	Keysets   *engine.Keysets
	// Pipes, Threads and Runner serve pipes, threads and runs; Traces the
	// run traces.
	Pipes   *engine.Pipes
	Threads *engine.Threads
	Runner  *engine.Runner
	Traces  *engine.Traces
	// Guards applies the guardrails (optional: nil checks nothing).
	Guards *engine.Guards
	// Memory serves memories, documents, uploads, retrieval and the
	// embed/chunker/parser primitives.
	Memory *memory.Service
	// Backup writes a consistent backup of the store (blob.Store.Backup).
	Backup func(ctx context.Context, w io.Writer) error
	// Metrics records HTTP and engine metrics; the engine services share it
	// (engine.Metrics).
	Metrics *metrics.Metrics
	// LocalModels, when set, lists the models local model servers have
	// for /v1/models (see CacheLocalModels).
	LocalModels LocalModelLister
	// Images generates images (/v1/images).
	Images *engine.Images
	// Tools runs web search and crawl (/v1/tools/*).
	Tools *engine.Tools
	// Agent serves /v1/agent/run.
	Agent *agent.Agent
	// Egress reports the egress policy and record (GET /v1/admin/egress);
	// nil answers 503.
	Egress func() EgressReport
	// Cluster is shared with the other nodes (rate limit counters); nil
	// means engine.Local, one process.
	Cluster engine.Cluster
	// Budgets keeps spending limits (/v1/budgets) and refuses work past
	// them; nil: no budgets.
	Budgets *engine.Budgets
	// CountAnthropicTokens asks Anthropic's count_tokens endpoint
	// (providers.Registry.CountAnthropicTokens); nil: every count of
	// /anthropic/v1/messages/count_tokens is an estimate.
	CountAnthropicTokens func(ctx context.Context, apiKey string, body []byte, beta string) (int, error)
	// ToolServers connects to upstream MCP servers for the /mcp gateway
	// (the agent's connector); nil offers no upstream tools.
	ToolServers engine.ToolServers
	// Deployments reports this node's view of the models served by several
	// servers (providers.Registry.Deployments); nil: none can be declared.
	Deployments func() []engine.DeploymentStatus
	// StoredDeployments keeps the deployments declared through
	// /v1/deployments and hearth apply; nil: that API is unavailable.
	StoredDeployments *engine.StoredDeployments
	// ConfigDeployments lists the deployments the configuration declares
	// (read-only), in the shape of the stored ones.
	ConfigDeployments func() []engine.StoredDeployment
	// Cache is the response cache the providers were wrapped with
	// (engine.CacheProviders); nil: the cache is off and LB-Cache is
	// checked but has no effect.
	Cache *engine.ResponseCache
}

// missing names the Deps fields that are nil.
func (d Deps) missing() []string {
	var out []string
	for name, absent := range map[string]bool{
		"Store": d.Store == nil, "Accounts": d.Accounts == nil, "Providers": d.Providers == nil,
		"Keysets": d.Keysets == nil, "Pipes": d.Pipes == nil, "Threads": d.Threads == nil,
		"Runner": d.Runner == nil, "Traces": d.Traces == nil, "Memory": d.Memory == nil,
		"Backup": d.Backup == nil, "Metrics": d.Metrics == nil, "Images": d.Images == nil,
		"Tools": d.Tools == nil, "Agent": d.Agent == nil,
	} {
		if absent {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// Server serves the Hearth API.
type Server struct {
	cfg  Config
	deps Deps
	log  *slog.Logger
	echo *echo.Echo
	// handler serves every request: echo with its middleware composed once (chain.go).
	handler *chain
	routes  []Route
	http    *http.Server
	ln      net.Listener
	// lean serves the simple requests of the listeners Listen wrapped.
	leanMu sync.Mutex
	lean   []*LeanListener

	metrics     *metrics.Metrics
	routePaths  map[string]bool
	metricsHTTP *http.Server
	metricsLn   net.Listener
	keyLimits   *limiter
	pipeLimits  *limiter
	openapi     openapiCache
	share       *share
	turns       *turnGate
	// longBodyRoutes holds the routes whose body limit is above
	// MaxBodyBytes (a few upload routes); they get UploadBodyTimeout.
	longBodyRoutes []routeKey
}

// New builds a server over complete deps; it does not listen until Open.
func New(cfg Config, deps Deps) (*Server, error) {
	if m := deps.missing(); len(m) > 0 {
		return nil, fmt.Errorf("server: missing deps %s", strings.Join(m, ", "))
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 8 << 20
	}
	if cfg.MaxUploadBytes <= 0 {
		cfg.MaxUploadBytes = 10 << 20
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = 30 * time.Second
	}
	cfg.hardenDefaults()
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	s := &Server{cfg: cfg, deps: deps, log: cfg.Logger, metrics: deps.Metrics, routePaths: map[string]bool{}}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.keyLimits = newLimiter(cfg.RateLimitPerKey, cfg.RateLimitBurst).withCluster(deps.Cluster, "rate/key/")
	s.pipeLimits = newLimiter(cfg.RateLimitPerPipe, cfg.RateLimitBurst).withCluster(deps.Cluster, "rate/pipe/")
	s.share = newShare(cfg.MaxConcurrent, cfg.MaxQueued, cfg.QueueTimeout, cfg.MaxInFlightPerKey, cfg.MaxInFlightPerIP)
	s.turns = newTurnGate(cfg.TurnsPerCPU * runtime.GOMAXPROCS(0))
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.JSONSerializer = plainJSON{}
	e.HTTPErrorHandler = s.handleError
	s.handler = newChain(e, normalizePath,
		s.requestIDs, s.securityHeaders, s.observe, s.accessLog, s.recoverPanics, s.guardIO, s.faults, cors())
	s.echo = e
	s.routes = s.routeTable()
	for _, r := range s.routes {
		s.routePaths[r.Path] = true
		limit := cfg.MaxBodyBytes
		if r.BodyLimit > 0 {
			limit = r.BodyLimit
		}
		if limit > cfg.MaxBodyBytes {
			s.longBodyRoutes = append(s.longBodyRoutes, routeKey{r.Method, r.Path})
		}
		e.Add(r.Method, r.Path, routeHandler(r.Handler, bodyLimit(limit), s.authenticate(r.Auth), s.admit, s.rateLimit))
	}
	return s, nil
}

// Handler returns the server as an http.Handler (for httptest and embedding).
func (s *Server) Handler() http.Handler { return s.handler }

// Routes returns the route table.
func (s *Server) Routes() []Route { return s.routes }

// Open starts listening on the configured address and serves in the background.
func (s *Server) Open() error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", s.cfg.Addr, err)
	}
	s.http = s.HTTPServer()
	ln = JSONErrorListener(s.Listen(ln, s.http))
	s.ln = ln
	if err := s.openMetricsListener(); err != nil {
		ln.Close()
		return fmt.Errorf("metrics listen %s: %w", s.cfg.MetricsAddr, err)
	}
	go func() {
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("http server stopped", "err", err)
		}
	}()
	return nil
}

// HTTPServer returns an http.Server of the server's handler and limits.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

// Listen wraps ln in the lean path for simple requests (unless LeanOff),
// to be served by srv, an http.Server of the server's handler and
// limits (HTTPServer, or one of httptest's): srv gets the connections
// the lean path hands over. Close drains the lean connections too.
// srv's ConnContext and Handler are wrapped so that the requests it
// serves keep RFC 9112 §6.1 (framing.go).
func (s *Server) Listen(ln net.Listener, srv *http.Server) net.Listener {
	if s.cfg.LeanOff {
		return guardFraming(ln, srv)
	}
	l := NewLeanListener(ln, s.handler, LeanConfig{ReadHeaderTimeout: srv.ReadHeaderTimeout,
		IdleTimeout: srv.IdleTimeout, ErrorLog: srv.ErrorLog,
		BaseContext: context.WithValue(context.Background(), http.ServerContextKey, srv)})
	s.leanMu.Lock()
	s.lean = append(s.lean, l)
	s.leanMu.Unlock()
	return guardFraming(l, srv)
}

// CloseConnections cuts every connection the lean path serves (a
// crash); net/http's are the http.Server's to cut.
func (s *Server) CloseConnections() {
	s.leanMu.Lock()
	defer s.leanMu.Unlock()
	for _, l := range s.lean {
		l.CloseConnections()
	}
}

// URL returns the address the server listens on, as a base URL.
func (s *Server) URL() string {
	if s.ln == nil {
		return ""
	}
	addr := s.ln.Addr().(*net.TCPAddr)
	host := addr.IP.String()
	if addr.IP.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, fmt.Sprint(addr.Port))
}

// Close stops accepting connections and drains in-flight requests, waiting
// at most the shutdown timeout (or ctx) before cutting them off.
func (s *Server) Close(ctx context.Context) error {
	s.leanMu.Lock()
	lean := s.lean
	s.lean = nil
	s.leanMu.Unlock()
	if s.http == nil && len(lean) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ShutdownTimeout)
	defer cancel()
	if s.metricsHTTP != nil {
		_ = s.metricsHTTP.Close()
	}
	var err error
	if s.http != nil {
		err = s.http.Shutdown(ctx)
		if errors.Is(err, context.DeadlineExceeded) {
			_ = s.http.Close()
		}
	}
	for _, l := range lean {
		if e := l.Shutdown(ctx); err == nil {
			err = e
		}
	}
	return err
}
