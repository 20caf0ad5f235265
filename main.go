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

// build opens the store and wires the engine and the HTTP server through
// the composition root (server/app), the same constructor the tests use.
func build(cfg Config, getenv func(string) string, log *slog.Logger, stdout io.Writer) (*app.App, error) {
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
	return app.Config{
		Data: cfg.Data, Version: version, Logger: log,
		Secret: secret, UploadSecret: deriveKey(secret, "hearth upload URL signing v1"),
		AdminLogin: cfg.AdminLogin, AdminKey: cfg.AdminKey,
		HTTP: server.Config{
			Addr: cfg.Addr, PublicURL: cfg.PublicURL, MaxBodyBytes: cfg.MaxBodyBytes,
			MaxUploadBytes: cfg.MaxUploadBytes, Version: version, Logger: log,
			MetricsOff: cfg.Metrics == "off", MetricsToken: cfg.MetricsToken, MetricsAddr: cfg.MetricsAddr,
			RateLimitPerKey: int(cfg.RateLimitPerKey), RateLimitPerPipe: int(cfg.RateLimitPerPipe), RateLimitBurst: int(cfg.RateLimitBurst),
			MaxConcurrent: cfg.serverMaxConcurrent(),
		},
		Providers:         providers.Config{Providers: cfg.Providers},
		Outbound:          cfg.Outbound,
		Memory:            cfg.memoryConfig(),
		Parser:            sandbox.Config{Timeout: cfg.parseTimeout(), MemoryLimit: cfg.ParseMemoryLimit},
		QuotaMaxDocuments: cfg.QuotaMaxDocuments, QuotaMaxBytes: cfg.QuotaMaxBytes,
		AgentMaxSteps: int(cfg.AgentMaxSteps),
		ExaBaseURL:    cfg.ExaBaseURL, SpiderBaseURL: cfg.SpiderBaseURL, FirecrawlBaseURL: cfg.FirecrawlBaseURL,
	}
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
	if err := a.Server.Open(); err != nil {
		a.Close(context.Background())
		return err
	}
	log.Info("hearth serving", "addr", cfg.Addr, "url", a.Server.URL(), "public_url", cfg.PublicURL, "data", cfg.Data, "version", version)
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
