package config

import (
	"log/slog"
	"time"

	"github.com/hearth-dev/hearth/engine/parse/sandbox"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/app"
)

// App maps the validated configuration onto the application's (call after
// Validate); secret is the data dir's key (LoadSecret), version the build's.
func (c Config) App(secret []byte, log *slog.Logger, version string) app.Config {
	ac := app.Config{
		Data: c.Data, DatabaseURL: c.DatabaseURL, DatabaseMaxConns: int32(c.DatabaseMaxConns), Version: version, Logger: log, StoreSnappy: c.StoreCompression == "snappy",
		Secret: secret, UploadSecret: deriveKey(secret, "hearth upload URL signing v1"),
		AdminLogin: c.AdminLogin, AdminKey: c.AdminKey,
		HTTP: server.Config{
			Addr: c.Addr, PublicURL: c.PublicURL, MaxBodyBytes: c.MaxBodyBytes,
			MaxUploadBytes: c.MaxUploadBytes, Version: version, Logger: log,
			MetricsOff: !c.Metrics, MetricsToken: c.MetricsToken, MetricsAddr: c.MetricsAddr,
			RateLimitPerKey: int(c.RateLimitPerKey), RateLimitPerPipe: int(c.RateLimitPerPipe), RateLimitBurst: int(c.RateLimitBurst),
			MaxConcurrent: c.serverMaxConcurrent(), LeanOff: c.ServerHTTP1 == "stdlib",
			AnthropicModelAliases: c.modelAliases,
			MCPUpstreams:          c.mcpUpstreams,
		},
		Providers:         providers.Config{Providers: c.Providers, HTTP1: c.UpstreamHTTP1, Models: c.models, Deployments: c.Deployments},
		Outbound:          c.Outbound,
		Memory:            c.memoryConfig(),
		Parser:            sandbox.Config{Timeout: time.Duration(c.ParseTimeout), MemoryLimit: c.ParseMemoryLimit, MaxOutput: int(c.ParseMaxOutput)},
		QuotaMaxDocuments: c.QuotaMaxDocuments, QuotaMaxBytes: c.QuotaMaxBytes,
		AgentMaxSteps: int(c.AgentMaxSteps), RunContentRetention: c.runContentRetention(), Cache: c.responseCache(),
		ExaBaseURL: c.ExaBaseURL, SpiderBaseURL: c.SpiderBaseURL, FirecrawlBaseURL: c.FirecrawlBaseURL,
		ThreadLimits: c.threadLimits(),
		Guard:        c.guard, GuardClassifierModel: c.GuardClassifierModel, GuardClassifierThreshold: c.guardThreshold(),
		DefaultModel: c.DefaultModel, DefaultEmbeddingModel: c.DefaultEmbeddingModel,
	}
	c.applyRequestLimits(&ac.HTTP)
	c.applyPacks(&ac.HTTP)
	ac.OutboundMode, ac.OutboundHosts = c.OutboundMode, c.outboundHosts
	ac.Testkit = c.testkit()
	ac.OTel = c.otel()
	ac.Extractor = c.extractor()
	return ac
}

// DefaultsFrom says where the default chat and embedding models came from,
// for the start-up log (set by Validate).
func (c *Config) DefaultsFrom() string { return c.from }

// EnvOnly lists the settings that have an environment variable but no flag.
func (c *Config) EnvOnly() []string {
	var out []string
	for _, v := range c.vars() {
		if v.flag == "" {
			out = append(out, v.env)
		}
	}
	return out
}

// Option is one setting as the command line and docs show it.
type Option struct {
	Env, Flag, Usage string
	// Default is the value before the file, the environment and the flags
	// ("" for the names read outside the table's fields).
	Default string
}

// Options lists every setting with its default.
func Options() []Option {
	c := Default()
	var out []Option
	for _, v := range c.vars() {
		def, _ := v.value()
		out = append(out, Option{Env: v.env, Flag: v.flag, Usage: v.usage, Default: def})
	}
	return out
}
