package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/providers"
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
	// ParseTimeout (a Go duration) bounds the parse of one PDF, which runs
	// in a child process that is killed when it is exceeded;
	// ParseMemoryLimit bounds that child's memory, in bytes.
	ParseTimeout     string `json:"parse_timeout"`
	ParseMemoryLimit int64  `json:"parse_memory_limit"`
	// ParseMaxOutput bounds the text one document may produce, in bytes,
	// in /v1/parser and in ingestion, whatever its format.
	ParseMaxOutput int64 `json:"parse_max_output"`
	// EmbedRetries is how many times an ingestion embedding batch that
	// failed with a retryable provider error (rate limit, 5xx, timeout) is
	// tried again; EmbedRetryMaxWait (a Go duration) caps the growing wait
	// between tries, Retry-After included.
	EmbedRetries      int64  `json:"embed_retries"`
	EmbedRetryMaxWait string `json:"embed_retry_max_wait"`
	// Providers holds each provider's base URL and server-wide key, from
	// HEARTH_<PROVIDER>_BASE_URL / HEARTH_<PROVIDER>_API_KEY. Extra
	// OpenAI-compatible providers are declared by name in HEARTH_PROVIDERS.
	Providers map[string]providers.ProviderConfig `json:"-"`
	// Base URLs of the web search and crawl services (not LLM providers,
	// so not in Providers); empty means the service's public API.
	ExaBaseURL       string `json:"exa_base_url"`
	SpiderBaseURL    string `json:"spider_base_url"`
	FirecrawlBaseURL string `json:"firecrawl_base_url"`
	// Metrics is "true" (serve /metrics on the main listener to the admin
	// user's key or MetricsToken) or "false".
	Metrics      string `json:"metrics"`
	MetricsToken string `json:"-"`
	// MetricsAddr serves /metrics without auth on a separate listener.
	MetricsAddr string `json:"metrics_addr"`
	// Limits and quotas (0 = off); see ops.go.
	RateLimitPerKey   int64 `json:"rate_limit_per_key"`
	RateLimitPerPipe  int64 `json:"rate_limit_per_pipe"`
	RateLimitBurst    int64 `json:"rate_limit_burst"`
	QuotaMaxDocuments int64 `json:"quota_max_documents"`
	QuotaMaxBytes     int64 `json:"quota_max_bytes"`
	// MaxConcurrent bounds requests served at once on this node (0 = no
	// limit); clients share the slots fairly (RequestLimits.MaxQueued).
	MaxConcurrent int64 `json:"max_concurrent"`
	// RequestLimits are the per-client and thread limits (limits.go).
	RequestLimits
	// CacheSettings configure the response cache (cache.go).
	CacheSettings
	// OutboundSettings are the one outbound policy (outbound.go).
	OutboundSettings
	// RunContentRetention is the default retention of stored run content
	// (runlog.go).
	RunContentRetention string `json:"run_content_retention"`
	// UpstreamHTTP1 is HEARTH_UPSTREAM_HTTP1: lean or stdlib.
	UpstreamHTTP1 string `json:"upstream_http1"`
	// ServerHTTP1 is HEARTH_SERVER_HTTP1: lean or stdlib (http1.go).
	ServerHTTP1 string `json:"server_http1"`
	// StoreCompression is HEARTH_STORE_COMPRESSION: none or snappy (http1.go).
	StoreCompression string `json:"store_compression"`
	// DatabaseURL selects cluster mode (cluster.go).
	DatabaseURL string `json:"database_url"`
	// JobLease (a Go duration) is how long a claimed ingestion job stays
	// held without a heartbeat (cluster.go).
	JobLease string `json:"job_lease"`
	// DatabaseMaxConns caps this node's pool of PostgreSQL connections
	// (config_cluster.go; 0: the default).
	DatabaseMaxConns int64 `json:"database_max_conns"`
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
	// warnings are the deprecations found while loading (Warnings).
	warnings []string
}

func Default() Config {
	return Config{
		Addr: ":8080", Data: "./hearth-data", LogLevel: "info", LogFormat: "text", AdminLogin: "admin",
		MaxBodyBytes: 8 << 20, MaxUploadBytes: 10 << 20,
		IngestWorkers: 0, AgentMaxSteps: 10, RetrieveVectorWeight: 1, RetrieveKeywordWeight: 1,
		ParseTimeout: "60s", ParseMemoryLimit: 1 << 30, ParseMaxOutput: 32 << 20, EmbedRetries: 3, EmbedRetryMaxWait: "60s",
		Metrics: "true", MaxConcurrent: 512, RequestLimits: defaultRequestLimits(), JobLease: "30s", RunContentRetention: "7d",
		ExtractorSettings: defaultExtractorSettings(),
		PackSettings:      defaultPackSettings(),
		CacheSettings:     defaultCacheSettings(),
	}
}

// configVar is one row of the option table (options.go): a setting's
// group, environment variable, flag (empty when the environment alone sets
// it), usage line for -h, the field it fills (str or num), its
// documentation for docs/configuration.md, and defDoc when the default is
// better described than by the field's value in Default.
type configVar struct {
	group, env, flag, usage string
	str                     *string
	num                     *int64
	flt                     *Float
	doc, defDoc             string
	secret                  bool // masked by -config-dump
	boolean                 bool // true or false (old spellings: oldBooleans)
}

// Validate checks every setting and fills derived defaults.
func (c *Config) Validate() error {
	var errs []error
	c.normalizeBooleans()
	host, port, err := net.SplitHostPort(c.Addr)
	if err != nil {
		errs = append(errs, fmt.Errorf("HEARTH_ADDR %q: want host:port such as :8080 (%v)", c.Addr, err))
	} else if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		errs = append(errs, fmt.Errorf("HEARTH_ADDR %q: port must be 0-65535", c.Addr))
	}
	if c.Data == "" {
		errs = append(errs, errors.New("HEARTH_DATA: must not be empty"))
	}
	if c.PublicURL == "" && err == nil {
		if host == "" || host == "0.0.0.0" || host == "::" {
			host = "localhost"
		}
		c.PublicURL = "http://" + net.JoinHostPort(host, port)
	}
	if u, perr := url.Parse(c.PublicURL); perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("HEARTH_PUBLIC_URL %q: must be an absolute http(s) URL", c.PublicURL))
	}
	c.PublicURL = strings.TrimRight(c.PublicURL, "/")
	if _, ok := logLevels[strings.ToLower(c.LogLevel)]; !ok {
		errs = append(errs, fmt.Errorf("HEARTH_LOG_LEVEL %q: use debug, info, warn or error", c.LogLevel))
	}
	if f := strings.ToLower(c.LogFormat); f != "text" && f != "json" {
		errs = append(errs, fmt.Errorf("HEARTH_LOG_FORMAT %q: use text or json", c.LogFormat))
	}
	if c.AdminKey != "" && len(c.AdminKey) < 16 {
		errs = append(errs, errors.New("HEARTH_ADMIN_KEY: must be at least 16 characters"))
	}
	if c.MaxBodyBytes < 1024 {
		errs = append(errs, fmt.Errorf("HEARTH_MAX_BODY_BYTES %d: must be at least 1024", c.MaxBodyBytes))
	}
	if c.MaxUploadBytes < 1024 {
		errs = append(errs, fmt.Errorf("HEARTH_MAX_UPLOAD_BYTES %d: must be at least 1024", c.MaxUploadBytes))
	}
	if c.AgentMaxSteps < 1 || c.AgentMaxSteps > 100 {
		errs = append(errs, fmt.Errorf("HEARTH_AGENT_MAX_STEPS %d: must be from 1 to 100", c.AgentMaxSteps))
	}
	if c.IngestWorkers < 0 || c.IngestWorkers > 64 {
		errs = append(errs, fmt.Errorf("HEARTH_INGEST_WORKERS %d: must be between 0 (one per CPU) and 64", c.IngestWorkers))
	}
	verr := checkWeight("HEARTH_RETRIEVE_VECTOR_WEIGHT", c.RetrieveVectorWeight)
	kerr := checkWeight("HEARTH_RETRIEVE_KEYWORD_WEIGHT", c.RetrieveKeywordWeight)
	vw, kw := c.RetrieveVectorWeight, c.RetrieveKeywordWeight
	errs = append(errs, verr, kerr)
	if verr == nil && kerr == nil && vw+kw == 0 {
		errs = append(errs, errors.New("HEARTH_RETRIEVE_VECTOR_WEIGHT and HEARTH_RETRIEVE_KEYWORD_WEIGHT: must not both be 0"))
	}
	if c.EmbedRetries < 0 || c.EmbedRetries > 20 {
		errs = append(errs, fmt.Errorf("HEARTH_EMBED_RETRIES %d: must be between 0 and 20", c.EmbedRetries))
	}
	if d, err := parseDuration(c.EmbedRetryMaxWait); err != nil || d < 100*time.Millisecond || d > time.Hour {
		errs = append(errs, fmt.Errorf("HEARTH_EMBED_RETRY_MAX_WAIT %q: must be a duration from 100ms to 1h, such as 30s or 2m", c.EmbedRetryMaxWait))
	}
	if d, err := parseDuration(c.ParseTimeout); err != nil || d < time.Second || d > time.Hour {
		errs = append(errs, fmt.Errorf("HEARTH_PARSE_TIMEOUT %q: must be a duration from 1s to 1h, such as 60s or 2m", c.ParseTimeout))
	}
	if c.ParseMemoryLimit < 64<<20 {
		errs = append(errs, fmt.Errorf("HEARTH_PARSE_MEMORY_LIMIT %d: must be at least 67108864 (64 MiB)", c.ParseMemoryLimit))
	}
	if c.ParseMaxOutput < 1<<20 || c.ParseMaxOutput > 256<<20 {
		errs = append(errs, fmt.Errorf("HEARTH_PARSE_MAX_OUTPUT %d: must be from 1048576 (1 MiB) to 268435456 (256 MiB)", c.ParseMaxOutput))
	}
	errs = append(errs, c.validateOps()...)
	errs = append(errs, c.validateRequestLimits()...)
	errs = append(errs, c.validateOutbound()...)
	errs = append(errs, c.validateCrawl()...)
	errs = append(errs, c.validateCluster()...)
	errs = append(errs, c.validateOTel()...)
	errs = append(errs, c.validateDeployments()...)
	errs = append(errs, c.validateDefaults()...)
	errs = append(errs, c.validateTestkit()...)
	errs = append(errs, c.validateExtractor()...)
	errs = append(errs, c.validatePacks()...)
	errs = append(errs, c.validateModels()...)
	errs = append(errs, c.validateRunLog()...)
	errs = append(errs, c.validateGuard()...)
	errs = append(errs, c.validateCache()...)
	errs = append(errs, c.validateUpstream()...)
	errs = append(errs, c.validateAnthropic()...)
	errs = append(errs, c.validateMCP()...)
	errs = append(errs, c.validateServerHTTP1()...)
	errs = append(errs, c.validateStoreCompression()...)
	for _, v := range []struct{ env, val string }{
		{"HEARTH_EXA_BASE_URL", c.ExaBaseURL}, {"HEARTH_SPIDER_BASE_URL", c.SpiderBaseURL}, {"HEARTH_FIRECRAWL_BASE_URL", c.FirecrawlBaseURL},
	} {
		if v.val == "" {
			continue
		}
		if u, err := url.Parse(v.val); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("%s %q: must be an absolute http(s) URL", v.env, v.val))
		}
	}
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

// checkWeight checks a retrieval weight: a number from 0 to 100.
func checkWeight(name string, w Float) error {
	if w < 0 || w > 100 || w != w {
		return fmt.Errorf("%s %v: must be a number from 0 to 100", name, float64(w))
	}
	return nil
}

// fusion returns the retrieval weights (call after Validate).
func (c *Config) fusion() memory.Fusion {
	return memory.Fusion{VectorWeight: float64(c.RetrieveVectorWeight), KeywordWeight: float64(c.RetrieveKeywordWeight)}
}

// memoryConfig returns the memory engine's settings from the configuration
// (call after Validate); app.New adds the dependencies.
func (c *Config) memoryConfig() memory.Config {
	wait, _ := parseDuration(c.EmbedRetryMaxWait)
	return memory.Config{
		Workers: int(c.IngestWorkers), Fusion: c.fusion(),
		EmbedAttempts: int(c.EmbedRetries) + 1, RetryMaxDelay: wait, LeaseTTL: c.jobLease(),
		CrawlTimeout: c.memoryCrawlTimeout(),
	}
}

// parseTimeout returns HEARTH_PARSE_TIMEOUT (call after Validate).
func (c *Config) parseTimeout() time.Duration {
	d, _ := parseDuration(c.ParseTimeout)
	return d
}

// UsageError is a command line the configuration cannot parse (exit status 2).
type UsageError struct{ error }

// Unwrap returns the flag package's error.
func (e UsageError) Unwrap() error { return e.error }
