// Package app is Hearth's composition root. New opens the store, builds
// every engine service and adapter over it and the HTTP server in front of
// them; hearth serve (server/app/cli) and the test harness (server/servertest) both build the
// application through it, so production and tests run the same wiring.
// Tests change parts of it only through Config.Overrides.
package app

import (
	"github.com/hearth-dev/hearth/engine/guard"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/engine/parse/sandbox"
	"github.com/hearth-dev/hearth/engine/telemetry"
	"github.com/hearth-dev/hearth/index"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/crawl"
	"github.com/hearth-dev/hearth/providers/extract"
	"github.com/hearth-dev/hearth/providers/netguard"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/metrics"
)

// Config is everything the application is built from. config.Config.App fills it
// from flags, environment and config file; servertest from its options.
type Config struct {
	// Data is the data directory: the store and the keyword indexes. In
	// cluster mode it only holds this node's caches (index replicas).
	Data string
	// DatabaseURL, when set, selects cluster mode: the store is this
	// PostgreSQL database, shared with the other nodes.
	DatabaseURL string
	// DatabaseMaxConns caps the node's pool of PostgreSQL connections in
	// cluster mode (0: pool_max_conns of DatabaseURL, else
	// DefaultPoolConns).
	DatabaseMaxConns int32
	// StoreSnappy opens the embedded store with the options of earlier
	// versions (blob.Options.Snappy; HEARTH_STORE_COMPRESSION=snappy).
	StoreSnappy bool
	Version     string
	Logger      *slog.Logger
	// Secret encrypts stored provider keys (at least 32 bytes);
	// UploadSecret signs upload URLs (at least 32 bytes).
	Secret       []byte
	UploadSecret []byte
	// AdminLogin and AdminKey create the first user of an empty data dir
	// (an empty AdminKey generates one, reported in App.FirstKey).
	AdminLogin string
	AdminKey   string
	// HTTP holds the HTTP server's settings.
	HTTP server.Config
	// Providers configures the LLM, image, search and crawl upstreams.
	Providers providers.Config
	// DeferModelsFileCheck leaves the check that every HEARTH_MODELS_FILE
	// entry names a known provider to the caller (App.CheckModelsFile),
	// for one that first applies declarations storing deployments.
	DeferModelsFileCheck bool
	// Outbound, OutboundMode and OutboundHosts are the one outbound policy
	// (docs/security.md, docs/air-gapped.md). Outbound guards calls to
	// user-supplied URLs (MCP servers, crawls, image fetches); OutboundMode
	// ("open" or "allowlist", HEARTH_OUTBOUND) and OutboundHosts (host
	// names, host:port pairs, CIDRs, HEARTH_OUTBOUND_HOSTS) build the one
	// dialer of every outbound connection, which Outbound then dials through.
	Outbound      netguard.Policy
	OutboundMode  string
	OutboundHosts []string
	// Memory holds the memory engine's settings; New fills in its
	// dependencies (store, index, providers, parser, metrics, quotas).
	Memory memory.Config
	// Index holds the HNSW and keyword index settings.
	Index index.Options
	// Parser bounds the sandboxed document parser.
	Parser sandbox.Config
	// Extractor is the external extractor PDFs without a text layer go to
	// (empty URL: none); New gives it the egress transport.
	Extractor extract.Config
	// QuotaMaxDocuments and QuotaMaxBytes bound each owner's stored
	// documents (0 = no limit).
	QuotaMaxDocuments int64
	QuotaMaxBytes     int64
	// ThreadLimits bound thread sizes and the history a run reads (zero
	// fields take the engine's defaults).
	ThreadLimits engine.ThreadLimits
	// Guard is the server-wide guardrail policy (nil: none); a
	// GuardClassifierModel ("provider:model"), when set, also scores
	// injection checks, a text at GuardClassifierThreshold or above
	// counting as one.
	Guard                    *guard.Policy
	GuardClassifierModel     string
	GuardClassifierThreshold float64
	// AgentMaxSteps bounds the model calls of one agent run (0 = default).
	AgentMaxSteps int
	// RunContentRetention is how long stored run content is kept unless
	// the owner sets a period (0 = engine.DefaultRunContentRetention).
	RunContentRetention time.Duration
	// Cache configures the response cache; nil turns it off (cache.go).
	Cache *engine.ResponseCacheConfig
	// Base URLs of the web search and crawl services; empty means the
	// service's public API.
	ExaBaseURL       string
	SpiderBaseURL    string
	FirecrawlBaseURL string
	// CrawlLimits bound the built-in crawler (zero fields: its defaults).
	CrawlLimits crawl.Limits
	// DefaultModel and DefaultEmbeddingModel are the models of pipes and
	// memories created without one ("" = the engines' built-in defaults).
	DefaultModel          string
	DefaultEmbeddingModel string
	// FirecrawlPoll is the Firecrawl status poll interval (0 = its default).
	FirecrawlPoll time.Duration
	// OTel configures trace export (otel.go); zero: off.
	OTel OTel
	// Testkit holds the settings for test suites (testkit.go).
	Testkit Testkit
	// Overrides replace parts of the application in tests.
	Overrides Overrides
}

// Overrides are the test hooks of New. Production leaves them empty.
type Overrides struct {
	// Providers, when set, replaces the provider registry built from
	// Config.Providers (it receives that registry). The result is
	// instrumented with metrics like the registry would be.
	Providers func(registry engine.Providers) engine.Providers
	// Memory adjusts the memory engine's config (workers, retry delays,
	// clock) just before the engine is built.
	Memory []func(*memory.Config)
	// Services run after every service is built and before the HTTP
	// server is; each may replace services in App.Deps.
	Services []func(*App)
}

// Store is what the application needs of its store: the engine's
// interface plus a consistent backup.
type Store interface {
	engine.Store
	Backup(ctx context.Context, w io.Writer) error
}

// ImageTimeout bounds one image generation call, fetches included.
const ImageTimeout = 60 * time.Second

// App is the built application. Close releases it; the HTTP server does
// not listen until Server.Open (tests serve Server.Handler instead).
type App struct {
	// Deps are the services the HTTP server serves.
	Deps    server.Deps
	Server  *server.Server
	Store   Store
	Metrics *metrics.Metrics
	Index   *index.Manager
	Memory  *memory.Service
	// Cluster is what this node shares with the other nodes on the store
	// (nil: engine.Local, the embedded mode).
	Cluster engine.Cluster
	RunLog  *engine.RunLog
	Quotas  *engine.Quotas
	// Cache is the response cache (nil: off).
	Cache *engine.ResponseCache
	// CacheIndex holds the response cache's semantic index (nil outside
	// semantic mode).
	CacheIndex *index.Manager
	// ThreadWrites group-commits thread writes (engine.GroupStore).
	ThreadWrites *engine.GroupStore
	// Egress is the dialer every outbound connection goes through, with
	// its record of destinations.
	Egress *netguard.Egress
	// Tracer exports traces (nil: tracing off).
	Tracer *telemetry.Tracer
	// AppliedModels are the model entries `hearth apply` stored, laid
	// under HEARTH_MODELS_FILE in the provider registry.
	AppliedModels *engine.AppliedModels
	// CheckModels validates model entries against the provider registry
	// (their shape, and that each names a known provider or one of
	// aliases).
	CheckModels func(entries []json.RawMessage, aliases []string) error
	// StoredDeployments are the deployments declared through the API or
	// hearth apply, routed beside the configuration's.
	StoredDeployments *engine.StoredDeployments
	// FirstKey is the generated API key of the first user when this start
	// created it without Config.AdminKey ("" otherwise); Created reports
	// whether the first user was created.
	FirstKey string
	Created  bool

	log   *slog.Logger
	built []string
	// pool puts image adapters behind the provider registry's key pools.
	pool func(engine.ImageModels) engine.ImageModels
	// closeUpstream closes the provider registry's idle upstream
	// connections on Close.
	closeUpstream func()
	// modelsFile checks HEARTH_MODELS_FILE's providers (CheckModelsFile).
	modelsFile func() error
}

// CheckModelsFile refuses HEARTH_MODELS_FILE entries naming a provider
// that exists nowhere: not built in, not configured, and not the alias of
// a deployment of the configuration or of the store as it is now
// (docs/providers.md#model-rules-and-prices-from-a-file).
func (a *App) CheckModelsFile() error {
	if a.modelsFile == nil {
		return nil
	}
	return a.modelsFile()
}

// openStore opens the store the application keeps its records and blobs
// in, and the Cluster of this node. It is the one place a store is chosen:
// the embedded Badger store in Config.Data with engine.Local, or in cluster
// mode (Config.DatabaseURL) the PostgreSQL database several nodes share
// with its postgres.Cluster. Everything New builds over it runs per node:
// search indexes are local replicas, the concurrency slots and caps count
// this process's requests, and rate limits count through the Cluster.
func openStore(cfg Config) (Store, engine.Cluster, error) {
	if cfg.DatabaseURL != "" {
		return openCluster(cfg)
	}
	store := blob.New(blob.Options{Dir: cfg.Data, Logger: cfg.Logger, Snappy: cfg.StoreSnappy})
	if err := store.Open(); err != nil {
		return nil, nil, err
	}
	return store, &engine.Local{}, nil
}

// New opens the store and builds the application over it. On error
// everything opened so far is closed again.
func New(cfg Config) (*App, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	store, cluster, err := openStore(cfg)
	if err != nil {
		return nil, err
	}
	a := &App{Store: store, Cluster: cluster, log: cfg.Logger}
	if err := a.build(cfg); err != nil {
		return nil, errors.Join(err, a.Close(context.Background()))
	}
	return a, nil
}

// build wires the services over the open store, in dependency order.
func (a *App) build(cfg Config) error {
	ctx := context.Background()
	if a.Cluster.Shared() {
		if err := CheckSecret(ctx, a.Store, cfg.Secret); err != nil {
			return err
		}
	}
	if err := engine.CheckDataFormat(ctx, a.Store, cfg.Version); err != nil {
		return err
	}
	accounts := engine.NewAccounts(a.Store)
	accounts.UseCluster(a.Cluster)
	created, key, err := accounts.Bootstrap(ctx, cfg.AdminLogin, cfg.AdminKey)
	if err != nil {
		return fmt.Errorf("create first user: %w", err)
	}
	a.Created, a.FirstKey = created, key
	a.Metrics = metrics.New(cfg.Version)
	a.Quotas = engine.NewQuotas(a.Store, cfg.QuotaMaxDocuments, cfg.QuotaMaxBytes)
	d := &a.Deps
	if err := a.buildEgress(&cfg); err != nil {
		return err
	}
	a.buildTracing(&cfg)
	d.Store, d.Accounts, d.Backup, d.Metrics, d.Cluster = a.Store, accounts, a.Store.Backup, a.Metrics, a.Cluster
	if err := a.buildTestkit(&cfg); err != nil {
		return err
	}
	if err := a.buildProviders(cfg); err != nil {
		return err
	}
	if err := a.buildMemory(ctx, cfg); err != nil {
		return err
	}
	a.buildRuns(cfg)
	if err := a.Deps.Threads.LoadIDKey(ctx); err != nil {
		return fmt.Errorf("thread id key: %w", err)
	}
	if err := a.buildTools(cfg); err != nil {
		return err
	}
	for _, f := range cfg.Overrides.Services {
		f(a)
	}
	a.Server, err = server.New(cfg.HTTP, a.Deps)
	return err
}

// Close drains the HTTP server, stops the ingestion workers, then closes
// the index (which snapshots its graphs), the run log and the store.
func (a *App) Close(ctx context.Context) error {
	var errs []error
	if a.Server != nil {
		errs = append(errs, a.Server.Close(ctx))
	}
	if a.Memory != nil {
		errs = append(errs, a.Memory.Close())
	}
	errs = append(errs, a.closeTracing())
	if a.closeUpstream != nil {
		a.closeUpstream()
	}
	if a.Index != nil {
		errs = append(errs, a.Index.Close())
	}
	if a.ThreadWrites != nil {
		errs = append(errs, a.ThreadWrites.Close())
	}
	if a.RunLog != nil {
		errs = append(errs, a.RunLog.Close())
	}
	if a.Cache != nil {
		errs = append(errs, a.Cache.Close())
	}
	if a.CacheIndex != nil {
		errs = append(errs, a.CacheIndex.Close())
	}
	if c, ok := a.Cluster.(io.Closer); ok {
		errs = append(errs, c.Close())
	}
	errs = append(errs, a.Store.Close())
	return errors.Join(errs...)
}

// keywordDir is where the keyword indexes live inside the data dir.
func keywordDir(data string) string { return filepath.Join(data, "bleve") }
