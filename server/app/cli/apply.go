package cli

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/hearth-dev/hearth/server/app"
	"github.com/hearth-dev/hearth/server/app/apply"
	"github.com/hearth-dev/hearth/server/app/config"
)

// applyCmd is "hearth apply DIR": it makes the data dir match the declarations in DIR.
func applyCmd(fs *flag.FlagSet, c cliIO) func([]string) error {
	data := dataFlag(fs, c)
	prune := fs.Bool("prune", false, "also delete the pipes, memories, documents and keysets of the declared owners, and the stored deployments, that the files no longer declare")
	dryRun := fs.Bool("dry-run", false, "print the plan (create / update / delete per object) and change nothing")
	wait := fs.Duration("wait", 10*time.Minute, "how long to wait for the documents to be ingested (0: do not wait)")
	return func(pos []string) error {
		if err := positional("apply", pos, "dir"); err != nil {
			return err
		}
		return withApp(c, *data, func(ctx context.Context, a *app.App) error {
			spec, err := apply.Load(pos[0])
			if err != nil {
				return err
			}
			svc := apply.ServicesOf(a, c.getenv)
			plan, err := apply.Build(ctx, svc, spec, apply.Options{Prune: *prune})
			if err != nil {
				return err
			}
			plan.Print(c.stdout)
			if *dryRun || len(plan.Changes) == 0 {
				return nil
			}
			if err := plan.Apply(ctx); err != nil {
				return err
			}
			if *wait > 0 {
				wctx, cancel := context.WithTimeout(ctx, *wait)
				defer cancel()
				if err := apply.Wait(wctx, svc, spec, plan.Admin); err != nil {
					return err
				}
			}
			fmt.Fprintln(c.stdout, "applied")
			return nil
		})
	}
}

// withApp builds the application on the data dir, as hearth serve does
// but without listening, for the duration of fn. Its log shows warnings
// and errors only.
func withApp(c cliIO, data string, fn func(ctx context.Context, a *app.App) error) error {
	cfg, _, err := config.Load("apply", nil, c.getenv)
	if err != nil {
		return err
	}
	cfg.Data = data
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("invalid configuration:\n%w", err)
	}
	log := slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	a, err := Build(cfg, c.getenv, log, c.stdout)
	if err != nil {
		return err
	}
	ctx := context.Background()
	err = fn(ctx, a)
	if cerr := a.Close(ctx); err == nil {
		err = cerr
	}
	return err
}

// applyAtStart applies HEARTH_APPLY_DIR before the server listens
// (without pruning or waiting for ingestion), logging each change. With
// several nodes on one database (cluster mode) every node applies the
// same files at its start: the plan is built and applied under the
// cluster-wide apply lock, so nodes starting together take turns and the
// later ones find nothing left to change.
func applyAtStart(a *app.App, dir string, getenv func(string) string, log *slog.Logger) error {
	ctx := context.Background()
	spec, err := apply.Load(dir)
	if err != nil {
		return fmt.Errorf("HEARTH_APPLY_DIR: %w", err)
	}
	var changes int
	err = apply.Locked(ctx, a.Cluster, func(ctx context.Context) error {
		plan, err := apply.Build(ctx, apply.ServicesOf(a, getenv), spec, apply.Options{})
		if err != nil {
			return err
		}
		for _, ch := range plan.Changes {
			log.Info("apply", "action", ch.Action, "kind", ch.Kind, "name", ch.Name)
		}
		changes = len(plan.Changes)
		return plan.Apply(ctx)
	})
	if err != nil {
		return fmt.Errorf("HEARTH_APPLY_DIR: %w", err)
	}
	log.Info("applied declarations", "dir", dir, "changes", changes)
	return nil
}
