package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/netguard"
	"github.com/hearth-dev/hearth/server"
)

// Config is the whole server configuration. It is read from an optional
// JSON file, then HEARTH_* environment variables, then command-line flags,
// each overriding the one before; Validate checks the result.
type Config struct {
	Addr           string `json:"addr"`
	Data           string `json:"data"`
	PublicURL      string `json:"public_url"`
	LogLevel       string `json:"log_level"`
	LogFormat      string `json:"log_format"`
	AdminLogin     string `json:"admin_login"`
	AdminKey       string `json:"-"`
	MaxBodyBytes   int64  `json:"max_body_bytes"`
	MaxUploadBytes int64  `json:"max_upload_bytes"`
	// AgentMaxSteps bounds the model calls of one agent run with MCP tools.
	AgentMaxSteps int64 `json:"agent_max_steps"`
	// IngestWorkers is the size of the document ingestion worker pool;
	// 0 sizes it from the CPUs (memory.DefaultWorkers).
	IngestWorkers int64 `json:"ingest_workers"`
	// RetrieveVectorWeight and RetrieveKeywordWeight weigh the vector and
	// keyword rankings of hybrid retrieval (reciprocal rank fusion).
	RetrieveVectorWeight  string `json:"retrieve_vector_weight"`
	RetrieveKeywordWeight string `json:"retrieve_keyword_weight"`
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
	// OutboundAllowPrivate ("true"/"false") lets user-supplied URLs (MCP
	// servers, crawled pages) reach private and loopback addresses.
	OutboundAllowPrivate string `json:"outbound_allow_private"`
	// OutboundAllow is a comma-separated list of CIDR prefixes allowed on
	// top of public addresses (for example one intranet subnet).
	OutboundAllow string `json:"outbound_allow"`
	// Outbound is the policy derived from the two settings above by Validate.
	Outbound netguard.Policy `json:"-"`
	// Base URLs of the web search and crawl services (not LLM providers,
	// so not in Providers); empty means the service's public API.
	ExaBaseURL       string `json:"exa_base_url"`
	SpiderBaseURL    string `json:"spider_base_url"`
	FirecrawlBaseURL string `json:"firecrawl_base_url"`
	// Metrics is "on" (serve /metrics on the main listener to the admin
	// user's key or MetricsToken) or "off".
	Metrics      string `json:"metrics"`
	MetricsToken string `json:"-"`
	// MetricsAddr serves /metrics without auth on a separate listener.
	MetricsAddr string `json:"metrics_addr"`
	// Limits and quotas (0 = off); see config_ops.go.
	RateLimitPerKey   int64 `json:"rate_limit_per_key"`
	RateLimitPerPipe  int64 `json:"rate_limit_per_pipe"`
	RateLimitBurst    int64 `json:"rate_limit_burst"`
	QuotaMaxDocuments int64 `json:"quota_max_documents"`
	QuotaMaxBytes     int64 `json:"quota_max_bytes"`
	// MaxConcurrent bounds requests served at once on this node (0 = no
	// limit); clients share the slots fairly (RequestLimits.MaxQueued).
	MaxConcurrent int64 `json:"max_concurrent"`
	// RequestLimits are the per-client and thread limits (config_limits.go).
	RequestLimits
	// CacheSettings configure the response cache (config_cache.go).
	CacheSettings
	// EgressSettings are the egress policy and apply settings (config_egress.go).
	EgressSettings
	// RunContentRetention is the default retention of stored run content
	// (config_runlog.go).
	RunContentRetention string `json:"run_content_retention"`
	// UpstreamHTTP1 is HEARTH_UPSTREAM_HTTP1: lean or stdlib.
	UpstreamHTTP1 string `json:"upstream_http1"`
	// ServerHTTP1 is HEARTH_SERVER_HTTP1: lean or stdlib (config_http1.go).
	ServerHTTP1 string `json:"server_http1"`
	// StoreCompression is HEARTH_STORE_COMPRESSION: none or snappy (config_http1.go).
	StoreCompression string `json:"store_compression"`
	// DatabaseURL selects cluster mode (config_cluster.go).
	DatabaseURL string `json:"database_url"`
	// JobLease (a Go duration) is how long a claimed ingestion job stays
	// held without a heartbeat (config_cluster.go).
	JobLease string `json:"job_lease"`
	// DatabaseMaxConns caps this node's pool of PostgreSQL connections
	// (config_cluster.go; 0: the default).
	DatabaseMaxConns int64 `json:"database_max_conns"`
	// ModelDefaults are the default chat and embedding models (config_defaults.go).
	ModelDefaults
	// TestkitSettings are the settings for test suites (config_testkit.go).
	TestkitSettings
	// CrawlSettings are the settings of crawls into memories (config_crawl.go).
	CrawlSettings
	// OTelSettings are the trace export settings (config_otel.go).
	OTelSettings
	// ExtractorSettings are the external extractor's (config_extractor.go).
	ExtractorSettings
	// PackSettings are the memory pack settings (config_packs.go).
	PackSettings
	// AnthropicSettings are the Anthropic surface's (config_anthropic.go).
	AnthropicSettings
	// ModelsSettings name the operator's models file (config_models.go).
	ModelsSettings
	// MCPSettings are the MCP endpoint's (config_mcp.go).
	MCPSettings
	// DeploymentSettings are the models served by several servers (config_deployments.go).
	DeploymentSettings
	// GuardSettings are the server-wide guardrails (config_guard.go).
	GuardSettings
}

func defaultConfig() Config {
	return Config{
		Addr: ":8080", Data: "./hearth-data", LogLevel: "info", LogFormat: "text", AdminLogin: "admin",
		MaxBodyBytes: 8 << 20, MaxUploadBytes: 10 << 20,
		IngestWorkers: 0, AgentMaxSteps: 10, RetrieveVectorWeight: "1", RetrieveKeywordWeight: "1",
		ParseTimeout: "60s", ParseMemoryLimit: 1 << 30, ParseMaxOutput: 32 << 20, EmbedRetries: 3, EmbedRetryMaxWait: "60s",
		Metrics: "on", MaxConcurrent: 512, RequestLimits: defaultRequestLimits(), JobLease: "30s", RunContentRetention: "7d",
		ExtractorSettings: defaultExtractorSettings(),
		PackSettings:      defaultPackSettings(),
		CacheSettings:     defaultCacheSettings(),
	}
}

// configVar ties a setting to its env variable and flag.
type configVar struct {
	env, flag, usage string
	str              *string
	num              *int64
}

func (c *Config) vars() []configVar {
	return append([]configVar{
		{env: "HEARTH_ADDR", flag: "addr", usage: "listen address", str: &c.Addr},
		{env: "HEARTH_DATA", flag: "data", usage: "data directory", str: &c.Data},
		{env: "HEARTH_PUBLIC_URL", flag: "public-url", usage: "absolute URL clients reach the server at (default derived from -addr)", str: &c.PublicURL},
		{env: "HEARTH_LOG_LEVEL", flag: "log-level", usage: "debug, info, warn or error", str: &c.LogLevel},
		{env: "HEARTH_LOG_FORMAT", flag: "log-format", usage: "text or json", str: &c.LogFormat},
		{env: "HEARTH_ADMIN_LOGIN", flag: "admin-login", usage: "login of the first user created on an empty data dir", str: &c.AdminLogin},
		{env: "HEARTH_ADMIN_KEY", str: &c.AdminKey},
		{env: "HEARTH_MAX_BODY_BYTES", flag: "max-body-bytes", usage: "largest JSON request body", num: &c.MaxBodyBytes},
		{env: "HEARTH_MAX_UPLOAD_BYTES", flag: "max-upload-bytes", usage: "largest document upload", num: &c.MaxUploadBytes},
		{env: "HEARTH_AGENT_MAX_STEPS", flag: "agent-max-steps", usage: "model calls one agent run may make while using MCP tools", num: &c.AgentMaxSteps},
		{env: "HEARTH_INGEST_WORKERS", flag: "ingest-workers", usage: "documents ingested in parallel", num: &c.IngestWorkers},
		{env: "HEARTH_RETRIEVE_VECTOR_WEIGHT", flag: "retrieve-vector-weight", usage: "weight of the vector ranking in hybrid retrieval", str: &c.RetrieveVectorWeight},
		{env: "HEARTH_RETRIEVE_KEYWORD_WEIGHT", flag: "retrieve-keyword-weight", usage: "weight of the keyword ranking in hybrid retrieval (0: vector only)", str: &c.RetrieveKeywordWeight},
		{env: "HEARTH_EMBED_RETRIES", flag: "embed-retries", usage: "retries of an ingestion embedding batch after a rate limit, 5xx or timeout (0-20)", num: &c.EmbedRetries},
		{env: "HEARTH_EMBED_RETRY_MAX_WAIT", flag: "embed-retry-max-wait", usage: "longest wait between those retries (a Go duration, 100ms to 1h)", str: &c.EmbedRetryMaxWait},
		{env: "HEARTH_PARSE_TIMEOUT", flag: "parse-timeout", usage: "longest parse of one PDF (a Go duration, 1s to 1h)", str: &c.ParseTimeout},
		{env: "HEARTH_PARSE_MEMORY_LIMIT", flag: "parse-memory-limit", usage: "most memory the parse of one PDF may use, in bytes", num: &c.ParseMemoryLimit},
		{env: "HEARTH_PARSE_MAX_OUTPUT", flag: "parse-max-output", usage: "most text one document may produce when parsed, in bytes (1 MiB to 256 MiB)", num: &c.ParseMaxOutput},
		{env: "HEARTH_OUTBOUND_ALLOW_PRIVATE", flag: "outbound-allow-private", usage: "true lets MCP servers and crawls reach private/loopback addresses", str: &c.OutboundAllowPrivate},
		{env: "HEARTH_OUTBOUND_ALLOW", flag: "outbound-allow", usage: "comma-separated CIDRs user-supplied URLs may reach besides public addresses", str: &c.OutboundAllow},
		{env: "HEARTH_EXA_BASE_URL", flag: "exa-base-url", usage: "Exa web search API (default https://api.exa.ai)", str: &c.ExaBaseURL},
		{env: "HEARTH_SPIDER_BASE_URL", flag: "spider-base-url", usage: "Spider crawl API (default https://api.spider.cloud)", str: &c.SpiderBaseURL},
		{env: "HEARTH_FIRECRAWL_BASE_URL", flag: "firecrawl-base-url", usage: "Firecrawl API, version included (default https://api.firecrawl.dev/v2; a URL ending in /v1 selects the v1 API)", str: &c.FirecrawlBaseURL},
		{env: "HEARTH_METRICS", flag: "metrics", usage: "on: /metrics on the main listener for the admin key or the metrics token; off: not there", str: &c.Metrics},
		{env: "HEARTH_METRICS_TOKEN", str: &c.MetricsToken},
		{env: "HEARTH_METRICS_ADDR", flag: "metrics-addr", usage: "separate listen address serving /metrics without auth (a private interface)", str: &c.MetricsAddr},
		{env: "HEARTH_RATE_LIMIT_PER_KEY", flag: "rate-limit-per-key", usage: "requests per minute per API key (0 = no limit)", num: &c.RateLimitPerKey},
		{env: "HEARTH_RATE_LIMIT_PER_PIPE", flag: "rate-limit-per-pipe", usage: "runs per minute per pipe (0 = no limit)", num: &c.RateLimitPerPipe},
		{env: "HEARTH_RATE_LIMIT_BURST", flag: "rate-limit-burst", usage: "requests allowed at once before the per-minute rate applies (0 = one minute's worth)", num: &c.RateLimitBurst},
		{env: "HEARTH_QUOTA_MAX_DOCUMENTS", flag: "quota-max-documents", usage: "documents each user or org may store (0 = no limit)", num: &c.QuotaMaxDocuments},
		{env: "HEARTH_QUOTA_MAX_BYTES", flag: "quota-max-bytes", usage: "document bytes each user or org may store (0 = no limit)", num: &c.QuotaMaxBytes},
		{env: "HEARTH_MAX_CONCURRENT", flag: "max-concurrent", usage: "requests served at once, shared fairly between keys; more wait (HEARTH_MAX_QUEUED, HEARTH_QUEUE_TIMEOUT), then get 503 (0 = no limit)", num: &c.MaxConcurrent},
	}, slices.Concat(
		c.limitVars(), c.egressVars(), c.clusterVars(), c.defaultVars(), c.testkitVars(),
		c.crawlVars(), c.otelVars(), c.extractorVars(), c.packVars(), c.runLogVars(), c.cacheVars(),
		c.upstreamVars(), c.serverHTTP1Vars(), c.storeVars(), c.anthropicVars(), c.modelsVars(), c.mcpVars(), c.deploymentVars(), c.guardVars(),
	)...)
}

// loadConfig applies file, env and flags in that order. args are the
// subcommand's arguments; the remaining positional arguments are returned.
func loadConfig(name string, args []string, getenv func(string) string) (Config, *flag.FlagSet, error) {
	cfg := defaultConfig()
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	configPath := fs.String("config", getenv("HEARTH_CONFIG"), "JSON config file (env HEARTH_CONFIG)")
	flagVals := map[string]*string{}
	fs.SetOutput(io.Discard) // serve prints its own help and usage line
	for _, v := range cfg.vars() {
		if v.flag != "" {
			// The default shows in -h; only flags given on the command line
			// (fs.Visit below) override the file and the environment.
			var def string
			if v.str != nil {
				def = *v.str
			} else {
				def = strconv.FormatInt(*v.num, 10)
			}
			flagVals[v.flag] = fs.String(v.flag, def, v.usage+" (env "+v.env+")")
		}
	}
	if err := fs.Parse(args); err != nil {
		return cfg, fs, usageError{err}
	}
	if *configPath != "" {
		b, err := os.ReadFile(*configPath)
		if err != nil {
			return cfg, fs, fmt.Errorf("config file: %w", err)
		}
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cfg); err != nil {
			return cfg, fs, fmt.Errorf("config file %s: %w", *configPath, err)
		}
	}
	set := func(v configVar, val, from string) error {
		if v.str != nil {
			*v.str = val
			return nil
		}
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			return fmt.Errorf("%s: %q is not a whole number", from, val)
		}
		*v.num = n
		return nil
	}
	for _, v := range cfg.vars() {
		if val := getenv(v.env); val != "" {
			if err := set(v, val, v.env); err != nil {
				return cfg, fs, err
			}
		}
	}
	cfg.Providers = providerEnv(getenv)
	var ferr error
	fs.Visit(func(f *flag.Flag) {
		for _, v := range cfg.vars() {
			if v.flag == f.Name && ferr == nil {
				ferr = set(v, *flagVals[f.Name], "-"+f.Name)
			}
		}
	})
	return cfg, fs, ferr
}

// Validate checks every setting and fills derived defaults.
func (c *Config) Validate() error {
	var errs []error
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
	vw, verr := parseWeight("HEARTH_RETRIEVE_VECTOR_WEIGHT", c.RetrieveVectorWeight)
	kw, kerr := parseWeight("HEARTH_RETRIEVE_KEYWORD_WEIGHT", c.RetrieveKeywordWeight)
	errs = append(errs, verr, kerr)
	if verr == nil && kerr == nil && vw+kw == 0 {
		errs = append(errs, errors.New("HEARTH_RETRIEVE_VECTOR_WEIGHT and HEARTH_RETRIEVE_KEYWORD_WEIGHT: must not both be 0"))
	}
	if c.EmbedRetries < 0 || c.EmbedRetries > 20 {
		errs = append(errs, fmt.Errorf("HEARTH_EMBED_RETRIES %d: must be between 0 and 20", c.EmbedRetries))
	}
	if d, err := time.ParseDuration(strings.TrimSpace(c.EmbedRetryMaxWait)); err != nil || d < 100*time.Millisecond || d > time.Hour {
		errs = append(errs, fmt.Errorf("HEARTH_EMBED_RETRY_MAX_WAIT %q: must be a duration from 100ms to 1h, such as 30s or 2m", c.EmbedRetryMaxWait))
	}
	if d, err := time.ParseDuration(strings.TrimSpace(c.ParseTimeout)); err != nil || d < time.Second || d > time.Hour {
		errs = append(errs, fmt.Errorf("HEARTH_PARSE_TIMEOUT %q: must be a duration from 1s to 1h, such as 60s or 2m", c.ParseTimeout))
	}
	if c.ParseMemoryLimit < 64<<20 {
		errs = append(errs, fmt.Errorf("HEARTH_PARSE_MEMORY_LIMIT %d: must be at least 67108864 (64 MiB)", c.ParseMemoryLimit))
	}
	if c.ParseMaxOutput < 1<<20 || c.ParseMaxOutput > 256<<20 {
		errs = append(errs, fmt.Errorf("HEARTH_PARSE_MAX_OUTPUT %d: must be from 1048576 (1 MiB) to 268435456 (256 MiB)", c.ParseMaxOutput))
	}
	switch strings.ToLower(c.OutboundAllowPrivate) {
	case "", "false", "0", "no":
		c.Outbound.AllowPrivate = false
	case "true", "1", "yes":
		c.Outbound.AllowPrivate = true
	default:
		errs = append(errs, fmt.Errorf("HEARTH_OUTBOUND_ALLOW_PRIVATE %q: use true or false", c.OutboundAllowPrivate))
	}
	errs = append(errs, c.validateOps()...)
	errs = append(errs, c.validateRequestLimits()...)
	errs = append(errs, c.validateEgress()...)
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
	c.Outbound.Allow = nil
	for _, cidr := range strings.Split(c.OutboundAllow, ",") {
		if cidr = strings.TrimSpace(cidr); cidr == "" {
			continue
		}
		p, err := netip.ParsePrefix(cidr)
		if err != nil {
			errs = append(errs, fmt.Errorf("HEARTH_OUTBOUND_ALLOW: %q is not a CIDR prefix such as 10.1.0.0/16", cidr))
			continue
		}
		c.Outbound.Allow = append(c.Outbound.Allow, p)
	}
	return errors.Join(errs...)
}

var logLevels = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}

func (c *Config) logger() *slog.Logger {
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

// parseWeight reads a retrieval weight: a number from 0 to 100.
func parseWeight(name, v string) (float64, error) {
	w, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || w < 0 || w > 100 || w != w {
		return 0, fmt.Errorf("%s %q: must be a number from 0 to 100", name, v)
	}
	return w, nil
}

// fusion returns the retrieval weights (call after Validate).
func (c *Config) fusion() memory.Fusion {
	vw, _ := parseWeight("", c.RetrieveVectorWeight)
	kw, _ := parseWeight("", c.RetrieveKeywordWeight)
	return memory.Fusion{VectorWeight: vw, KeywordWeight: kw}
}

// memoryConfig returns the memory engine's settings from the configuration
// (call after Validate); main.go adds the dependencies.
func (c *Config) memoryConfig() memory.Config {
	wait, _ := time.ParseDuration(strings.TrimSpace(c.EmbedRetryMaxWait))
	return memory.Config{
		Workers: int(c.IngestWorkers), Fusion: c.fusion(),
		EmbedAttempts: int(c.EmbedRetries) + 1, RetryMaxDelay: wait, LeaseTTL: c.jobLease(),
		CrawlTimeout: c.memoryCrawlTimeout(),
	}
}

// parseTimeout returns HEARTH_PARSE_TIMEOUT (call after Validate).
func (c *Config) parseTimeout() time.Duration {
	d, _ := time.ParseDuration(strings.TrimSpace(c.ParseTimeout))
	return d
}
