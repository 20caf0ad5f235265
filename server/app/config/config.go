package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/netguard"
	"github.com/hearth-dev/hearth/providers/replay"
	"github.com/hearth-dev/hearth/server"
)

// Config is the whole server configuration. It is read from an optional
// JSON file, then HEARTH_* environment variables, then command-line flags,
// each overriding the one before; Validate checks the result.
type Config struct {
	Addr       string `json:"addr"`
	Data       string `json:"data"`
	PublicURL  string `json:"public_url"`
	LogLevel   string `json:"log_level"`
	LogFormat  string `json:"log_format"`
	AdminLogin string `json:"admin_login"`
	AdminKey   string `json:"-"`
	// ApplyDir is a directory of declarations applied at start
	// (docs/pipes-as-code.md).
	ApplyDir       string `json:"apply_dir"`
	MaxBodyBytes   int64  `json:"max_body_bytes"`
	MaxUploadBytes int64  `json:"max_upload_bytes"`
	// AgentMaxSteps bounds the model calls of one agent run with MCP tools.
	AgentMaxSteps int64 `json:"agent_max_steps"`
	// IngestWorkers is the size of the document ingestion worker pool;
	// 0 sizes it from the CPUs (memory.DefaultWorkers).
	IngestWorkers int64 `json:"ingest_workers"`
	// RetrieveVectorWeight and RetrieveKeywordWeight weigh the vector and
	// keyword rankings of hybrid retrieval (reciprocal rank fusion).
	RetrieveVectorWeight  Float `json:"retrieve_vector_weight"`
	RetrieveKeywordWeight Float `json:"retrieve_keyword_weight"`
	// ParseTimeout bounds the parse of one PDF, which runs
	// in a child process that is killed when it is exceeded;
	// ParseMemoryLimit bounds that child's memory, in bytes.
	ParseTimeout     Duration `json:"parse_timeout"`
	ParseMemoryLimit int64    `json:"parse_memory_limit"`
	// ParseMaxOutput bounds the text one document may produce, in bytes,
	// in /v1/parser and in ingestion, whatever its format.
	ParseMaxOutput int64 `json:"parse_max_output"`
	// EmbedRetries is how many times an ingestion embedding batch that
	// failed with a retryable provider error (rate limit, 5xx, timeout) is
	// tried again; EmbedRetryMaxWait caps the growing wait
	// between tries, Retry-After included.
	EmbedRetries      int64    `json:"embed_retries"`
	EmbedRetryMaxWait Duration `json:"embed_retry_max_wait"`
	// Providers holds each provider's base URL and server-wide key, from
	// HEARTH_<PROVIDER>_BASE_URL / HEARTH_<PROVIDER>_API_KEY. Extra
	// OpenAI-compatible providers are declared by name in HEARTH_PROVIDERS.
	Providers map[string]providers.ProviderConfig `json:"-"`
	// Base URLs of the web search and crawl services (not LLM providers,
	// so not in Providers); empty means the service's public API.
	ExaBaseURL       string `json:"exa_base_url"`
	SpiderBaseURL    string `json:"spider_base_url"`
	FirecrawlBaseURL string `json:"firecrawl_base_url"`
	// Metrics serves /metrics on the main listener to the admin user's key
	// or MetricsToken.
	Metrics      bool   `json:"metrics"`
	MetricsToken string `json:"-"`
	// MetricsAddr serves /metrics without auth on a separate listener.
	MetricsAddr string `json:"metrics_addr"`
	// Limits and quotas (0 = off); see limits.go.
	RateLimitPerKey   int64 `json:"rate_limit_per_key"`
	RateLimitPerPipe  int64 `json:"rate_limit_per_pipe"`
	RateLimitBurst    int64 `json:"rate_limit_burst"`
	QuotaMaxDocuments int64 `json:"quota_max_documents"`
	QuotaMaxBytes     int64 `json:"quota_max_bytes"`
	// MaxConcurrent bounds requests served at once on this node (0 = no
	// limit); clients share the slots fairly (RequestLimits.MaxQueued).
	MaxConcurrent int64 `json:"max_concurrent"`
	// CPUTurns bounds the admitted requests that compute at once, per CPU
	// (0 = no bound; server.Config.TurnsPerCPU); 2 by default.
	CPUTurns int64 `json:"cpu_turns"`
	// RequestLimits are the per-client and thread limits (limits.go).
	RequestLimits
	// CacheSettings configure the response cache (cache.go).
	CacheSettings
	// OutboundSettings are the one outbound policy (outbound.go).
	OutboundSettings
	// RunContentRetention is the default retention of stored run content
	// (runlog.go).
	RunContentRetention Duration `json:"run_content_retention"`
	// UpstreamHTTP1 is HEARTH_UPSTREAM_HTTP1: lean or stdlib.
	UpstreamHTTP1 string `json:"upstream_http1"`
	// ServerHTTP1 is HEARTH_SERVER_HTTP1: lean or stdlib.
	ServerHTTP1 string `json:"server_http1"`
	// StoreCompression is HEARTH_STORE_COMPRESSION: none or snappy (store.go).
	StoreCompression string `json:"store_compression"`
	// DatabaseURL selects cluster mode (cluster.go).
	DatabaseURL string `json:"database_url"`
	// JobLease is how long a claimed ingestion job stays held without a
	// heartbeat. The lease is kept in the job's record, so every node on
	// one database sees the same deadline; each node renews the jobs it
	// runs every third of its own setting, so give every node the same value.
	JobLease Duration `json:"job_lease"`
	// DatabaseMaxConns caps this node's pool of PostgreSQL connections
	// (cluster.go; 0: the default).
	DatabaseMaxConns int64 `json:"database_max_conns"`
	// GCHeapFloor is how far above the live heap `hearth serve` keeps the
	// garbage collector's goal, in bytes (-1: not at all; 0: the default,
	// DefaultGCHeapFloor in cluster mode, not at all otherwise).
	GCHeapFloor int64 `json:"gc_heap_floor"`
	// ModelDefaults are the default chat and embedding models (defaults.go).
	ModelDefaults
	// TestkitSettings are the settings for test suites (testkit.go).
	TestkitSettings
	// CrawlSettings are the settings of crawls into memories (crawl.go).
	CrawlSettings
	// OTelSettings are the trace export settings (otel.go).
	OTelSettings
	// ExtractorSettings are the external extractor's (extractor.go).
	ExtractorSettings
	// PackSettings are the memory pack settings (packs.go).
	PackSettings
	// AnthropicSettings are the Anthropic surface's (anthropic.go).
	AnthropicSettings
	// ModelsSettings name the operator's models file (models.go).
	ModelsSettings
	// MCPSettings are the MCP endpoint's (mcp.go).
	MCPSettings
	// DeploymentSettings are the models served by several servers (deployments.go).
	DeploymentSettings
	// GuardSettings are the server-wide guardrails (guard.go).
	GuardSettings
	// sources says where each setting came from, by env name (Load).
	sources map[string]string
	// unfilled holds the values of the table's rows read outside Config's
	// fields (HEARTH_CONFIG, HEARTH_SECRET_KEY, HEARTH_PROVIDERS), for Dump.
	unfilled map[string]string
	// given says how each setting was last given (setVar), for errors.
	given map[string]givenValue
	// warnings are the deprecations found while loading (Warnings).
	warnings []string
}

// Default is the configuration before the file, the environment and the
// flags: every setting's default.
func Default() Config {
	return Config{
		Addr: ":8080", Data: "./hearth-data", LogLevel: "info", LogFormat: "text", AdminLogin: "admin",
		MaxBodyBytes: 8 << 20, MaxUploadBytes: 10 << 20,
		IngestWorkers: 0, AgentMaxSteps: 10, RetrieveVectorWeight: 1, RetrieveKeywordWeight: 1,
		ParseTimeout: Duration(60 * time.Second), ParseMemoryLimit: 1 << 30, ParseMaxOutput: 32 << 20,
		EmbedRetries: 3, EmbedRetryMaxWait: Duration(60 * time.Second),
		Metrics: true, MaxConcurrent: 512, CPUTurns: server.DefaultTurnsPerCPU, RequestLimits: defaultRequestLimits(),
		JobLease: Duration(30 * time.Second), RunContentRetention: Duration(7 * 24 * time.Hour),
		UpstreamHTTP1: "lean", ServerHTTP1: "lean", StoreCompression: "none",
		OutboundSettings:  OutboundSettings{OutboundMode: netguard.ModeOpen},
		TestkitSettings:   TestkitSettings{Faults: "off", ReplayMiss: replay.MissError},
		CrawlSettings:     CrawlSettings{MemoryCrawlTimeout: Duration(memory.DefaultCrawlTimeout)},
		GuardSettings:     GuardSettings{GuardClassifierThreshold: 0.5},
		ExtractorSettings: defaultExtractorSettings(),
		PackSettings:      defaultPackSettings(),
		CacheSettings:     defaultCacheSettings(),
	}
}

// Validate checks every setting against its rule (checkOptions), then
// the checks that span several settings (crossChecks), then the settings
// that hold documents of their own (policies, model lists, JSON), and
// fills derived defaults.
func (c *Config) Validate() error {
	errs := []error{c.checkOptions()}
	if host, port, err := net.SplitHostPort(c.Addr); err == nil && c.PublicURL == "" {
		if host == "" || host == "0.0.0.0" || host == "::" {
			host = "localhost"
		}
		c.PublicURL = "http://" + net.JoinHostPort(host, port)
	}
	if u, perr := url.Parse(c.PublicURL); perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("HEARTH_PUBLIC_URL %q: must be an absolute http(s) URL", c.PublicURL))
	}
	c.PublicURL = strings.TrimRight(c.PublicURL, "/")
	errs = append(errs, c.crossChecks()...)
	errs = append(errs, c.validateCluster()...)
	errs = append(errs, c.validateDeployments()...)
	errs = append(errs, c.validateDefaults()...)
	c.tidyTestkit()
	errs = append(errs, c.validateModels()...)
	errs = append(errs, c.validateGuard()...)
	c.buildOutbound()
	return errors.Join(errs...)
}

var logLevels = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}

func (c *Config) Logger() *slog.Logger {
	// server.LogHandler: slog's text or JSON lines, with the access log
	// written directly (the same bytes).
	return slog.New(server.NewLogHandler(os.Stderr, strings.ToLower(c.LogFormat) == "json", logLevels[strings.ToLower(c.LogLevel)]))
}

// providerEnv reads every provider's base URL and key from the environment.
func providerEnv(getenv func(string) string) map[string]providers.ProviderConfig {
	names := providers.KnownProviders()
	for _, n := range strings.Split(getenv("HEARTH_PROVIDERS"), ",") {
		if n = strings.ToLower(strings.TrimSpace(n)); n != "" {
			names = append(names, n)
		}
	}
	out := map[string]providers.ProviderConfig{}
	for _, n := range names {
		baseEnv, keyEnv := providers.EnvNames(n)
		if pc := (providers.ProviderConfig{BaseURL: getenv(baseEnv), APIKey: getenv(keyEnv)}); pc != (providers.ProviderConfig{}) {
			out[n] = pc
		} else if !slices.Contains(providers.KnownProviders(), n) {
			out[n] = pc // an extra provider without a URL: New reports it by name
		}
	}
	return out
}

// fusion returns the retrieval weights (call after Validate).
func (c *Config) fusion() memory.Fusion {
	return memory.Fusion{VectorWeight: float64(c.RetrieveVectorWeight), KeywordWeight: float64(c.RetrieveKeywordWeight)}
}

// memoryConfig returns the memory engine's settings from the configuration
// (call after Validate); app.New adds the dependencies.
func (c *Config) memoryConfig() memory.Config {
	return memory.Config{
		Workers: int(c.IngestWorkers), Fusion: c.fusion(),
		EmbedAttempts: int(c.EmbedRetries) + 1, RetryMaxDelay: time.Duration(c.EmbedRetryMaxWait),
		LeaseTTL: time.Duration(c.JobLease), CrawlTimeout: time.Duration(c.MemoryCrawlTimeout),
	}
}

// UsageError is a command line the configuration cannot parse (exit status 2).
type UsageError struct{ error }

// Unwrap returns the flag package's error.
func (e UsageError) Unwrap() error { return e.error }
