package app

import (
	"github.com/hearth-dev/hearth/engine/guard"

	"context"
	"fmt"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/agent"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/engine/parse/sandbox"
	"github.com/hearth-dev/hearth/index"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/crawl"
	"github.com/hearth-dev/hearth/providers/images"
	"github.com/hearth-dev/hearth/providers/mcp"
	"github.com/hearth-dev/hearth/providers/netguard"
	"github.com/hearth-dev/hearth/providers/search"
	"github.com/hearth-dev/hearth/server"
)

// localModelsTTL is how long /v1/models keeps a local model server's list.
const localModelsTTL = 30 * time.Second

// buildProviders builds the provider registry (or its test override), the
// instrumented view every service calls, and the keysets over it.
func (a *App) buildProviders(cfg Config) error {
	pcfg := cfg.Providers
	if pcfg.Counter == nil {
		pcfg.Counter = a.Cluster // deployments' tpm limits count across the cluster
	}
	registry, err := providers.New(pcfg)
	if err != nil {
		return err
	}
	var provs engine.Providers = registry
	if cfg.Overrides.Providers != nil {
		provs = cfg.Overrides.Providers(registry)
		a.note("providers: overridden")
	}
	keysets, err := engine.NewKeysets(a.Store, provs, cfg.Secret)
	if err != nil {
		return err
	}
	keysets.UseCluster(a.Cluster)
	if err := a.buildStoredDeployments(registry, cfg.Secret); err != nil {
		return err
	}
	// The models file's entries are checked once the stored deployments'
	// alias providers are known.
	a.modelsFile = func() error {
		if err := registry.CheckModelsFile(); err != nil {
			return fmt.Errorf("HEARTH_MODELS_FILE %w", err)
		}
		return nil
	}
	if !cfg.DeferModelsFileCheck {
		if err := a.CheckModelsFile(); err != nil {
			return err
		}
	}
	if err := a.buildAppliedModels(registry); err != nil {
		return err
	}
	var cls guard.Classifier
	if cfg.GuardClassifierModel != "" {
		if cls, err = engine.NewGuardClassifier(provs, cfg.GuardClassifierModel, cfg.GuardClassifierThreshold); err != nil {
			return fmt.Errorf("guard classifier: %w", err)
		}
	}
	guards, err := engine.NewGuards(cfg.Guard, cls, a.Metrics)
	if err != nil {
		return fmt.Errorf("guard policy: %w", err)
	}
	a.Deps.Guards = guards
	// Guardrails outermost, so every call is checked, answered from the
	// response cache or not (the cache keys on the checked request and
	// keeps the model's answer, which output checks see on every hit);
	// the cache in front of the metrics, so a hit calls no upstream.
	a.Deps.Providers = engine.InstrumentProviders(a.traceProviders(provs), a.Metrics)
	if err := a.buildCache(cfg); err != nil {
		return err
	}
	a.Deps.Providers = engine.GuardProviders(a.Deps.Providers, guards)
	a.Deps.Keysets = keysets
	a.Deps.LocalModels = server.CacheLocalModels(registry, localModelsTTL)
	a.Deps.Deployments = registry.Deployments
	a.Metrics.WatchDeployments(registry.Deployments)
	a.Deps.CountAnthropicTokens = registry.CountAnthropicTokens
	a.pool = registry.PoolImages
	a.closeUpstream = registry.CloseIdleConnections
	a.note("providers: instrumented")
	return nil
}

// buildMemory opens the search index and the memory engine (its ingestion
// workers start here) and registers the engine as the index's chunk source.
func (a *App) buildMemory(ctx context.Context, cfg Config) error {
	d := &a.Deps
	iopts := cfg.Index
	iopts.Logger, iopts.Cluster = cfg.Logger, a.Cluster
	a.Index = index.NewManager(a.Store, keywordDir(cfg.Data), iopts)
	if err := a.Index.Open(ctx); err != nil {
		return err
	}
	pcfg := cfg.Parser
	pcfg.Logger = cfg.Logger
	if err := a.buildExtractor(cfg, &pcfg); err != nil {
		return err
	}
	parser, err := sandbox.New(pcfg)
	if err != nil {
		return err
	}
	mcfg := cfg.Memory
	mcfg.Store, mcfg.Index, mcfg.Providers, mcfg.Keysets = a.Store, a.Index, d.Providers, d.Keysets
	mcfg.UploadSecret, mcfg.BaseURL = cfg.UploadSecret, cfg.HTTP.PublicURL
	mcfg.DefaultEmbeddingModel = cfg.DefaultEmbeddingModel
	mcfg.Logger, mcfg.Parse, mcfg.Metrics, mcfg.Quotas = cfg.Logger, parser.Parse, a.Metrics, a.Quotas
	mcfg.Cluster = a.Cluster
	// Crawls into memories use the built-in crawler under the same outbound
	// policy as /v1/tools/crawl with service "hearth".
	mcfg.Crawler = crawl.NewBuiltin(withFeature(cfg.Outbound, "crawl"), cfg.CrawlLimits, a.log)
	a.traceMemory(&mcfg)
	for _, f := range cfg.Overrides.Memory {
		f(&mcfg)
	}
	mem, err := memory.New(mcfg)
	if err != nil {
		return err
	}
	a.Index.SetChunkSource(mem)
	if err := mem.Open(ctx); err != nil {
		return err
	}
	a.Memory, d.Memory = mem, mem
	a.Metrics.WatchIndex(a.Index.Sizes)
	a.Metrics.WatchIngestQueue(mem.QueueDepth)
	a.note("memory: sandboxed parser, metrics, quotas, index chunk source")
	return nil
}

// buildRuns builds the pipe, thread, run and trace services; the Runner
// records every run in the run log.
func (a *App) buildRuns(cfg Config) {
	d := &a.Deps
	d.Pipes = engine.NewPipes(engine.PipesConfig{Store: a.Store, Accounts: d.Accounts, Keysets: d.Keysets,
		Providers: d.Providers, Memories: d.Memory, DefaultModel: cfg.DefaultModel, Cluster: a.Cluster})
	// Thread writes (a run's messages included) share transactions with
	// concurrent requests' and are answered only after theirs commits.
	a.ThreadWrites = engine.NewGroupStore(slowCommits(a.Store, cfg.Testkit.FaultRules), 0, 0)
	d.Threads = engine.NewThreads(a.ThreadWrites)
	d.Threads.SetLimits(cfg.ThreadLimits)
	a.RunLog = engine.NewRunLog(a.Store, d.Providers, a.log)
	d.Budgets = engine.NewBudgets(a.Store)
	d.Budgets.UseCluster(a.Cluster)
	a.RunLog.SetMeter(d.Budgets)
	a.RunLog.SetContentRetention(cfg.RunContentRetention, nil)
	a.RunLog.StartContentSweeps(a.Cluster, engine.RunContentSweepInterval)
	d.Runner = engine.NewRunner(engine.RunnerConfig{Pipes: d.Pipes, Threads: d.Threads, Keysets: d.Keysets,
		Providers: d.Providers, Memories: d.Memory, Retriever: d.Memory, RunLog: a.RunLog, Logger: a.log, Guards: d.Guards})
	d.Traces = engine.NewTraces(a.Store)
	a.note("runner: run log")
	a.note("traces")
}

// buildTools builds the image, web search, crawl and agent services, each
// instrumented with metrics.
func (a *App) buildTools(cfg Config) error {
	d := &a.Deps
	imageModels, err := images.New(cfg.Providers, withFeature(cfg.Outbound, "image fetch").Client(ImageTimeout, 5))
	if err != nil {
		return err
	}
	var imgs engine.ImageModels = imageModels
	if a.pool != nil {
		imgs = a.pool(imgs)
	}
	d.Images = engine.NewImages(engine.InstrumentImages(imgs, a.Metrics), d.Keysets)
	a.note(fmt.Sprintf("images: instrumented, timeout %s", ImageTimeout))
	fc := crawl.NewFirecrawl(cfg.FirecrawlBaseURL, cfg.Providers)
	if cfg.FirecrawlPoll > 0 {
		fc.PollInterval = cfg.FirecrawlPoll
	}
	d.Tools = engine.NewTools(
		engine.InstrumentSearchers(map[string]engine.WebSearcher{"exa": search.NewExa(cfg.ExaBaseURL, cfg.Providers)}, a.Metrics),
		engine.InstrumentCrawlers(map[string]engine.Crawler{
			"spider":    crawl.NewSpider(cfg.SpiderBaseURL, cfg.Providers),
			"firecrawl": fc,
			"hearth":    crawl.NewBuiltin(withFeature(cfg.Outbound, "crawl"), cfg.CrawlLimits, a.log),
		}, a.Metrics))
	a.note("tools: search exa, crawl firecrawl hearth spider, instrumented")
	mcpTools := engine.InstrumentToolServers(mcp.New(mcp.Config{Policy: withFeature(cfg.Outbound, "mcp"), Version: cfg.Version}), a.Metrics)
	d.ToolServers = mcpTools
	d.Agent = agent.NewAgent(agent.AgentOptions{Providers: d.Providers, Keysets: d.Keysets, MaxSteps: cfg.AgentMaxSteps, Tools: mcpTools, RunLog: a.RunLog})
	a.note("agent: MCP tools, instrumented")
	return nil
}

// withFeature labels the connections made under p in the egress record.
func withFeature(p netguard.Policy, feature string) netguard.Policy {
	p.Feature = feature
	return p
}
