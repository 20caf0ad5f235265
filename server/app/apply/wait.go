package apply

import (
	"context"
	"fmt"
	"time"

	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/server/app"
)

// ServicesOf returns the engine services of a built application.
func ServicesOf(a *app.App, getenv func(string) string) Services {
	return Services{Accounts: a.Deps.Accounts, Pipes: a.Deps.Pipes, Memory: a.Memory, Keysets: a.Deps.Keysets,
		Store: a.Store, Getenv: getenv, Models: a.AppliedModels, CheckModels: a.CheckModels,
		Deployments: a.StoredDeployments}
}

// Wait polls the documents of the memories spec declares until none is
// queued or being ingested, and reports the first that failed.
func Wait(ctx context.Context, svc Services, spec *Spec, admin string) error {
	for {
		pending := 0
		for _, m := range spec.Memories {
			owner := m.Owner
			if owner == "" {
				owner = admin
			}
			_, docs, err := svc.Memory.Documents(ctx, owner, m.Name)
			if err != nil {
				return err
			}
			for _, d := range docs {
				switch d.Status {
				case memory.StatusFailed:
					return fmt.Errorf("memory %s/%s: document %q failed: %s", owner, m.Name, d.Name, d.StatusMessage)
				case memory.StatusQueued, memory.StatusInProgress:
					pending++
				}
			}
		}
		if pending == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d documents still ingesting: %w", pending, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
