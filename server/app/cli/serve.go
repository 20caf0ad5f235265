package cli

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
	"github.com/hearth-dev/hearth/server/app"
	"github.com/hearth-dev/hearth/server/app/config"
)

// serveHelp prints the server's flags with their defaults and environment
// variables, then the settings only the environment sets.
func serveHelp(w io.Writer, getenv func(string) string) {
	_, fs, _ := config.Load("serve", nil, getenv)
	fmt.Fprintf(w, "usage: hearth serve [flags]\n\nA flag overrides its environment variable, which overrides the config file (-config).\n\nFlags:\n")
	fs.SetOutput(w)
	fs.PrintDefaults()
	cfg := config.Default()
	fmt.Fprintf(w, "  -config-dump\n    \tprint the effective settings (config file, then environment, then flags), secrets masked, and exit\n")
	fmt.Fprintf(w, "  -ephemeral\n    \ta throwaway server for tests: temp data dir removed on exit, a free port on 127.0.0.1,\n    \tone JSON line on stdout with url and admin_key\n")
	fmt.Fprintf(w, "\nSet only in the environment: %s (docs/configuration.md lists every setting).\n", strings.Join(cfg.EnvOnly(), ", "))
}

// Build opens the store and wires the engine and the HTTP server through
// the composition root (server/app), the same constructor the tests use.
// It leaves HEARTH_MODELS_FILE's provider check (App.CheckModelsFile) to
// serve, which runs it after HEARTH_APPLY_DIR may have stored the
// deployments whose aliases the file names; the data-dir commands serve
// no calls and skip it.
func Build(cfg config.Config, getenv func(string) string, log *slog.Logger, stdout io.Writer) (*app.App, error) {
	if cfg.Clustered() && strings.TrimSpace(getenv("HEARTH_SECRET_KEY")) == "" {
		return nil, errors.New("HEARTH_SECRET_KEY is required with HEARTH_DATABASE_URL: every node of a cluster must use the same key " +
			"(generate one with `openssl rand -hex 32`; docs/several-nodes.md)")
	}
	secret, err := config.LoadSecret(cfg.Data, getenv)
	if err != nil {
		return nil, err
	}
	ac := cfg.App(secret, log, Version)
	ac.DeferModelsFileCheck = true
	a, err := app.New(ac)
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

func serve(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	args, ephemeral := takeFlag(args, "ephemeral")
	args, dump := takeFlag(args, "config-dump")
	cfg, _, err := config.Load("serve", args, getenv)
	if errors.Is(err, flag.ErrHelp) {
		serveHelp(stdout, getenv)
		return err
	}
	if errors.As(err, new(config.UsageError)) {
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
	verr := cfg.Validate()
	if dump {
		cfg.Dump(stdout)
	}
	if verr != nil {
		return fmt.Errorf("invalid configuration:\n%w", verr)
	}
	if dump {
		return nil
	}
	log := cfg.Logger()
	for _, w := range cfg.Warnings() {
		log.Warn(w)
	}
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
	a, err := Build(cfg, getenv, log, out)
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
	if err := a.CheckModelsFile(); err != nil {
		a.Close(context.Background())
		return err
	}
	if err := a.Server.Open(); err != nil {
		a.Close(context.Background())
		return err
	}
	defer startGCFloor(cfg.HeapFloor(), gcFloorPeriod)()
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
	log.Info("hearth serving", "addr", cfg.Addr, "url", a.Server.URL(), "public_url", cfg.PublicURL, "data", cfg.Data, "version", Version)
	logListening(log, cfg.Addr, cfg.PublicURL)
	log.Info("default models", "model", cfg.DefaultModel, "embedding_model", cfg.DefaultEmbeddingModel, "why", cfg.DefaultsFrom())
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

// serveCmd runs hearth serve.
func serveCmd(args []string, c cliIO) error { return serve(args, c.getenv, c.stdout, c.stderr) }
