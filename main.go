// Command hearth is a self-hosted, Langbase-compatible LLM application
// server in one binary. main.go reads the configuration, builds the store,
// providers and engine, hands them to the HTTP server and runs it until a
// signal; nothing else in the module reads the environment.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine/parse/sandbox"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/app"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// usage lists the commands; the admin verbs come from their table.
func usage() string {
	var b strings.Builder
	b.WriteString(`hearth: a self-hosted, Langbase-compatible LLM application server

Usage:
  hearth serve [flags]                      run the server (default :8080, data in ./hearth-data)
`)
	for _, c := range allCommands() {
		fmt.Fprintln(&b, "  "+strings.TrimSpace("hearth "+c.name+" "+c.args))
	}
	b.WriteString(`  hearth backup [-out file] [-url URL -key ADMIN_KEY]   consistent zstd backup (online via the server if it runs)
  hearth restore -in file [-force]           restore into an empty, stopped data dir
  hearth migrate -to postgres://...          copy a stopped data dir into an empty PostgreSQL database (cluster mode)
  hearth version
  hearth help [command]                      a command's flags, their defaults and env names

Every command takes -data (env HEARTH_DATA). Account and key commands work
on the data dir directly and refuse while a server holds it; stop the server
first, or use the HTTP API (/v1/keys) while it runs. In cluster mode
(HEARTH_DATABASE_URL set) they work on the shared database while the nodes
run. Run 'hearth serve -h' for the server's settings.
`)
	return b.String()
}

// usageError is a command line the command cannot parse (exit status 2).
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	c := cliIO{getenv: getenv, stdin: os.Stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return 2
	}
	if cmd, ok := findAdmin(args); ok {
		return runAdmin(cmd, args[cmd.words():], c)
	}
	var err error
	switch args[0] {
	case "serve":
		err = serve(args[1:], getenv, stdout, stderr)
	case "backup":
		err = backupCmd(args[1:], getenv, stdout, stderr)
	case "restore":
		err = restoreCmd(args[1:], getenv, stderr)
	case "migrate":
		err = migrateCmd(args[1:], getenv, stdout, stderr)
	case sandbox.Subcommand: // hidden: the PDF parser child of a running server
		return sandbox.Serve(os.Stdin, stdout)
	case "version", "-v", "--version":
		fmt.Fprintln(stdout, "hearth", version)
	case "help", "-h", "--help":
		return help(args[1:], c)
	default:
		fmt.Fprintf(stderr, "hearth: unknown command %q\n\n%s", strings.Join(args[:min(2, len(args))], " "), usage())
		return 2
	}
	var uerr usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp): // -h of backup and restore printed their flags
		return 0
	case errors.As(err, &uerr):
		fmt.Fprintln(stderr, "hearth:", err)
		return 2
	default:
		fmt.Fprintln(stderr, "hearth:", err)
		return 1
	}
}

// help prints the usage of one command, or of all of them.
func help(args []string, c cliIO) int {
	name := strings.Join(args, " ")
	if cmd, ok := findAdmin(args); ok && len(args) == cmd.words() {
		cmd.help(c.stdout, c)
		return 0
	}
	switch name {
	case "":
		fmt.Fprint(c.stdout, usage())
	case "serve":
		serveHelp(c.stdout, c.getenv)
	case "backup":
		backupCmd([]string{"-h"}, c.getenv, c.stdout, c.stdout)
	case "restore":
		restoreCmd([]string{"-h"}, c.getenv, c.stdout)
	case "migrate":
		migrateCmd([]string{"-h"}, c.getenv, c.stdout, c.stdout)
	case "version":
		fmt.Fprintln(c.stdout, "usage: hearth version")
	default:
		fmt.Fprintf(c.stderr, "hearth help: unknown command %q\n\n%s", name, usage())
		return 2
	}
	return 0
}

// serveHelp prints the server's flags with their defaults and environment
// variables, then the settings only the environment sets.
func serveHelp(w io.Writer, getenv func(string) string) {
	_, fs, _ := loadConfig("serve", nil, getenv)
	fmt.Fprintf(w, "usage: hearth serve [flags]\n\nA flag overrides its environment variable, which overrides the config file (-config).\n\nFlags:\n")
	fs.SetOutput(w)
	fs.PrintDefaults()
	var envOnly []string
	cfg := defaultConfig()
	for _, v := range cfg.vars() {
		if v.flag == "" {
			envOnly = append(envOnly, v.env)
		}
	}
	fmt.Fprintf(w, "  -ephemeral\n    \ta throwaway server for tests: temp data dir removed on exit, a free port on 127.0.0.1,\n    \tone JSON line on stdout with url and admin_key\n")
	fmt.Fprintf(w, "\nSet only in the environment: %s, HEARTH_PROVIDERS, and HEARTH_<PROVIDER>_BASE_URL /\nHEARTH_<PROVIDER>_API_KEY for each provider (see docs/providers.md).\n", strings.Join(envOnly, ", "))
}

// build opens the store and wires the engine and the HTTP server through
// the composition root (server/app), the same constructor the tests use.
func build(cfg Config, getenv func(string) string, log *slog.Logger, stdout io.Writer) (*app.App, error) {
	if cfg.clustered() && strings.TrimSpace(getenv("HEARTH_SECRET_KEY")) == "" {
		return nil, errors.New("HEARTH_SECRET_KEY is required with HEARTH_DATABASE_URL: every node of a cluster must use the same key " +
			"(generate one with `openssl rand -hex 32`; docs/several-nodes.md)")
	}
	secret, err := loadSecret(cfg.Data, getenv)
	if err != nil {
		return nil, err
	}
	a, err := app.New(appConfig(cfg, secret, log))
	if err != nil {
		return nil, err
	}
	if a.Created && a.FirstKey != "" {
		fmt.Fprintf(stdout, "Created user %q. Its API key is shown once, keep it safe:\n\n    %s\n\n", cfg.AdminLogin, a.FirstKey)
	} else if a.Created {
		log.Info("created first user with HEARTH_ADMIN_KEY", "login", cfg.AdminLogin)
	}
	return a, nil
}

// appConfig maps the validated configuration onto the application's.
func appConfig(cfg Config, secret []byte, log *slog.Logger) app.Config {
	ac := app.Config{
		Data: cfg.Data, DatabaseURL: cfg.DatabaseURL, DatabaseMaxConns: int32(cfg.DatabaseMaxConns), Version: version, Logger: log, StoreSnappy: cfg.StoreCompression == "snappy",
		Secret: secret, UploadSecret: deriveKey(secret, "hearth upload URL signing v1"),
		AdminLogin: cfg.AdminLogin, AdminKey: cfg.AdminKey,
		HTTP: server.Config{
			Addr: cfg.Addr, PublicURL: cfg.PublicURL, MaxBodyBytes: cfg.MaxBodyBytes,
			MaxUploadBytes: cfg.MaxUploadBytes, Version: version, Logger: log,
			MetricsOff: cfg.Metrics == "off", MetricsToken: cfg.MetricsToken, MetricsAddr: cfg.MetricsAddr,
			RateLimitPerKey: int(cfg.RateLimitPerKey), RateLimitPerPipe: int(cfg.RateLimitPerPipe), RateLimitBurst: int(cfg.RateLimitBurst),
			MaxConcurrent: cfg.serverMaxConcurrent(), LeanOff: cfg.ServerHTTP1 == "stdlib",
			AnthropicModelAliases: cfg.anthropicModelAliases(),
			MCPUpstreams:          cfg.mcpUpstreams(),
		},
		Providers:         providers.Config{Providers: cfg.Providers, HTTP1: cfg.UpstreamHTTP1, Models: cfg.models, Deployments: cfg.Deployments},
		Outbound:          cfg.Outbound,
		Memory:            cfg.memoryConfig(),
		Parser:            sandbox.Config{Timeout: cfg.parseTimeout(), MemoryLimit: cfg.ParseMemoryLimit, MaxOutput: int(cfg.ParseMaxOutput)},
		QuotaMaxDocuments: cfg.QuotaMaxDocuments, QuotaMaxBytes: cfg.QuotaMaxBytes,
		AgentMaxSteps: int(cfg.AgentMaxSteps), RunContentRetention: cfg.runContentRetention(), Cache: cfg.responseCache(),
		ExaBaseURL: cfg.ExaBaseURL, SpiderBaseURL: cfg.SpiderBaseURL, FirecrawlBaseURL: cfg.FirecrawlBaseURL,
		ThreadLimits: cfg.threadLimits(),
		Guard:        cfg.guard, GuardClassifierModel: cfg.GuardClassifierModel, GuardClassifierThreshold: cfg.guardThreshold(),
		DefaultModel: cfg.DefaultModel, DefaultEmbeddingModel: cfg.DefaultEmbeddingModel,
	}
	cfg.applyRequestLimits(&ac.HTTP)
	cfg.applyPacks(&ac.HTTP)
	ac.EgressMode, ac.EgressAllow = cfg.Egress, cfg.egressAllow()
	ac.Testkit = cfg.testkit()
	ac.OTel = cfg.otel()
	ac.Extractor = cfg.extractor()
	return ac
}

func serve(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	args, ephemeral := ephemeralFlag(args)
	cfg, _, err := loadConfig("serve", args, getenv)
	if errors.Is(err, flag.ErrHelp) {
		serveHelp(stdout, getenv)
		return err
	}
	if errors.As(err, new(usageError)) {
		return usageError{fmt.Errorf("serve: %w\nusage: hearth serve [flags] (hearth serve -h lists them)", err)}
	}
	if err != nil {
		return err
	}
	if ephemeral {
		cleanup, err := makeEphemeral(&cfg)
		defer cleanup()
		if err != nil {
			return err
		}
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
	out := stdout
	if ephemeral {
		out = io.Discard // stdout carries the one ready line
	}
	a, err := build(cfg, getenv, log, out)
	if err != nil {
		if errors.Is(err, blob.ErrLocked) {
			return fmt.Errorf("%w: is another hearth server running on it?", err)
		}
		return err
	}
	if cfg.ApplyDir != "" {
		if err := applyAtStart(a, cfg.ApplyDir, getenv, log); err != nil {
			a.Close(context.Background())
			return err
		}
	}
	if err := a.Server.Open(); err != nil {
		a.Close(context.Background())
		return err
	}
	if ephemeral {
		key := cfg.AdminKey
		if key == "" {
			key = a.FirstKey
		}
		if err := announce(stdout, a.Server.URL(), key, cfg.Data); err != nil {
			a.Close(context.Background())
			return err
		}
	}
	log.Info("hearth serving", "addr", cfg.Addr, "url", a.Server.URL(), "public_url", cfg.PublicURL, "data", cfg.Data, "version", version)
	logListening(log, cfg.Addr, cfg.PublicURL)
	log.Info("default models", "model", cfg.DefaultModel, "embedding_model", cfg.DefaultEmbeddingModel, "why", cfg.from)
	if u := a.Server.MetricsURL(); u != "" {
		log.Info("metrics serving without auth", "url", u+"/metrics")
	}

	s := <-sig
	log.Info("shutting down: draining requests", "signal", s.String())
	if err := a.Close(context.Background()); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped cleanly")
	return nil
}
