// Command hearth is a self-hosted, Langbase-compatible LLM application
// server in one binary. main.go reads the configuration, builds the store,
// providers and engine, hands them to the HTTP server and runs it until a
// signal; nothing else in the module reads the environment.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/engine/parse/sandbox"
	"github.com/hearth-dev/hearth/index"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/crawl"
	"github.com/hearth-dev/hearth/providers/images"
	"github.com/hearth-dev/hearth/providers/mcp"
	"github.com/hearth-dev/hearth/providers/search"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/metrics"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

const usage = `hearth: a self-hosted, Langbase-compatible LLM application server

Usage:
  hearth serve [flags]                      run the server (default :8080, data in ./hearth-data)
  hearth users create <login>               create a user
  hearth users list                         list users and organizations
  hearth orgs create <login> --owner <user> create an organization
  hearth orgs add-member <org> <user>       add a user to an organization
  hearth keys create --user <login> | --org <login> [--name <label>]
  hearth keys list --user <login> | --org <login>
  hearth keys revoke <key-id>
  hearth keysets set --user <login> | --org <login> --provider <name> [--key <key>]   (key from stdin if omitted)
  hearth keysets list --user <login> | --org <login>
  hearth keysets remove --user <login> | --org <login> --provider <name>
  hearth backup [-out file] [-url URL -key ADMIN_KEY]   consistent zstd backup (online via the server if it runs)
  hearth restore -in file [-force]           restore into an empty, stopped data dir
  hearth version

Every command takes -data (env HEARTH_DATA). Account and key commands work
on the data dir directly and refuse while a server holds it; stop the server
first, or use the HTTP API (/v1/keys) while it runs. Run 'hearth serve -h'
for the server's settings.
`

func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "serve":
		err = serve(args[1:], getenv, stdout, stderr)
	case "users", "orgs", "keys", "keysets":
		err = admin(args[0], args[1:], getenv, os.Stdin, stdout)
	case "backup":
		err = backupCmd(args[1:], getenv, stdout, stderr)
	case "restore":
		err = restoreCmd(args[1:], getenv, stderr)
	case sandbox.Subcommand: // hidden: the PDF parser child of a running server
		return sandbox.Serve(os.Stdin, stdout)
	case "version", "-v", "--version":
		fmt.Fprintln(stdout, "hearth", version)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "hearth: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, "hearth:", err)
		return 1
	}
	return 0
}

// app is the wired server: everything serve builds and later closes.
type app struct {
	cfg      Config
	log      *slog.Logger
	store    *blob.Store
	accounts *engine.Accounts
	index    *index.Manager
	memory   *memory.Service
	runLog   *engine.RunLog
	server   *server.Server
	// quotas is handed to the services that store documents.
	quotas *engine.Quotas
}

// Accounts returns the wired accounts service.
func (a *app) Accounts() *engine.Accounts { return a.accounts }

// build opens the store and wires the engine and the HTTP server.
func build(cfg Config, getenv func(string) string, log *slog.Logger, stdout io.Writer) (*app, error) {
	secret, err := loadSecret(cfg.Data, getenv)
	if err != nil {
		return nil, err
	}
	store := blob.New(blob.Options{Dir: cfg.Data, Logger: log})
	if err := store.Open(); err != nil {
		return nil, err
	}
	accounts := engine.NewAccounts(store)
	a := &app{cfg: cfg, log: log, store: store, accounts: accounts,
		quotas: engine.NewQuotas(store, cfg.QuotaMaxDocuments, cfg.QuotaMaxBytes)}
	mtr := metrics.New(version)
	pcfg := providers.Config{Providers: cfg.Providers}
	registry, err := providers.New(pcfg)
	if err != nil {
		store.Close()
		return nil, err
	}
	provs := engine.InstrumentProviders(registry, mtr)
	keysets, err := engine.NewKeysets(store, registry, secret)
	if err != nil {
		store.Close()
		return nil, err
	}
	ctx := context.Background()
	if err := engine.CheckDataFormat(ctx, store, version); err != nil {
		store.Close()
		return nil, err
	}
	created, key, err := accounts.Bootstrap(ctx, cfg.AdminLogin, cfg.AdminKey)
	if err != nil {
		a.close(ctx)
		return nil, fmt.Errorf("create first user: %w", err)
	}
	if created && key != "" {
		fmt.Fprintf(stdout, "Created user %q. Its API key is shown once, keep it safe:\n\n    %s\n\n", cfg.AdminLogin, key)
	} else if created {
		log.Info("created first user with HEARTH_ADMIN_KEY", "login", cfg.AdminLogin)
	}
	a.index = index.NewManager(store, filepath.Join(cfg.Data, "bleve"), index.Options{Logger: log})
	if err := a.index.Open(ctx); err != nil {
		a.close(ctx)
		return nil, err
	}
	parser, err := sandbox.New(sandbox.Config{Timeout: cfg.parseTimeout(), MemoryLimit: cfg.ParseMemoryLimit, Logger: log})
	if err != nil {
		a.close(ctx)
		return nil, err
	}
	mcfg := cfg.memoryConfig()
	mcfg.Store, mcfg.Index, mcfg.Providers, mcfg.Keysets = store, a.index, provs, keysets
	mcfg.UploadSecret, mcfg.BaseURL = deriveKey(secret, "hearth upload URL signing v1"), cfg.PublicURL
	mcfg.Logger, mcfg.Parse, mcfg.Metrics, mcfg.Quotas = log, parser.Parse, mtr, a.quotas
	mem, err := memory.New(mcfg)
	if err != nil {
		a.close(ctx)
		return nil, err
	}
	if err := mem.Open(ctx); err != nil {
		a.close(ctx)
		return nil, err
	}
	a.memory = mem
	mtr.WatchIndex(a.index.Sizes)
	mtr.WatchIngestQueue(mem.QueueDepth)
	pipes := engine.NewPipes(engine.PipesConfig{Store: store, Accounts: accounts, Keysets: keysets, Providers: provs, Memories: mem})
	threads := engine.NewThreads(store)
	threads.SetLimits(cfg.threadLimits())
	a.runLog = engine.NewRunLog(store, provs, log)
	runner := engine.NewRunner(engine.RunnerConfig{Pipes: pipes, Threads: threads, Keysets: keysets,
		Providers: provs, Memories: mem, Retriever: mem, RunLog: a.runLog, Logger: log})
	imageModels, err := images.New(pcfg, cfg.Outbound.Client(60*time.Second, 5))
	if err != nil {
		a.close(ctx)
		return nil, err
	}
	tools := engine.NewTools(
		engine.InstrumentSearchers(map[string]engine.WebSearcher{"exa": search.NewExa(cfg.ExaBaseURL, pcfg)}, mtr),
		engine.InstrumentCrawlers(map[string]engine.Crawler{
			"spider":    crawl.NewSpider(cfg.SpiderBaseURL, pcfg),
			"firecrawl": crawl.NewFirecrawl(cfg.FirecrawlBaseURL, pcfg),
			"hearth":    crawl.NewBuiltin(cfg.Outbound, crawl.Limits{}, log),
		}, mtr))
	scfg := server.Config{
		Addr: cfg.Addr, PublicURL: cfg.PublicURL, MaxBodyBytes: cfg.MaxBodyBytes,
		MaxUploadBytes: cfg.MaxUploadBytes, Version: version, Logger: log, Outbound: cfg.Outbound,
		MetricsOff: cfg.Metrics == "off", MetricsToken: cfg.MetricsToken, MetricsAddr: cfg.MetricsAddr,
		RateLimitPerKey: int(cfg.RateLimitPerKey), RateLimitPerPipe: int(cfg.RateLimitPerPipe), RateLimitBurst: int(cfg.RateLimitBurst),
		MaxConcurrent: cfg.serverMaxConcurrent(),
	}
	cfg.applyRequestLimits(&scfg)
	srv, err := server.New(scfg, server.Deps{Store: store, Accounts: accounts, Keysets: keysets, Providers: provs, Backup: store.Backup,
		Pipes: pipes, Threads: threads, Runner: runner, Memory: mem,
		Images: engine.NewImages(engine.InstrumentImages(imageModels, mtr), keysets), Tools: tools, Metrics: mtr,
		Agent: engine.NewAgent(engine.AgentOptions{Providers: provs, Keysets: keysets, MaxSteps: int(cfg.AgentMaxSteps),
			Tools: engine.InstrumentToolServers(mcp.New(mcp.Config{Policy: cfg.Outbound, Version: version}), mtr)})})
	if err != nil {
		a.close(ctx)
		return nil, err
	}
	a.server = srv
	return a, nil
}

// close drains the HTTP server, stops the ingestion workers, then closes
// the index (which snapshots its graphs) and the store.
func (a *app) close(ctx context.Context) error {
	var errs []error
	if a.server != nil {
		errs = append(errs, a.server.Close(ctx))
	}
	if a.memory != nil {
		errs = append(errs, a.memory.Close())
	}
	if a.index != nil {
		errs = append(errs, a.index.Close())
	}
	if a.runLog != nil {
		errs = append(errs, a.runLog.Close())
	}
	errs = append(errs, a.store.Close())
	return errors.Join(errs...)
}

func serve(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, _, err := loadConfig("serve", args, getenv)
	if err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("invalid configuration:\n%w", err)
	}
	log := cfg.logger()
	if err := checkDataDir(cfg.Data); err != nil {
		return err
	}
	// Register for signals before anything listens, so a signal that
	// arrives as soon as the port is open still shuts down cleanly.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	a, err := build(cfg, getenv, log, stdout)
	if err != nil {
		if errors.Is(err, blob.ErrLocked) {
			return fmt.Errorf("%w: is another hearth server running on it?", err)
		}
		return err
	}
	if err := a.server.Open(); err != nil {
		a.close(context.Background())
		return err
	}
	log.Info("hearth serving", "addr", cfg.Addr, "url", a.server.URL(), "public_url", cfg.PublicURL, "data", cfg.Data, "version", version)
	if u := a.server.MetricsURL(); u != "" {
		log.Info("metrics serving without auth", "url", u+"/metrics")
	}

	s := <-sig
	log.Info("shutting down: draining requests", "signal", s.String())
	if err := a.close(context.Background()); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped cleanly")
	return nil
}
