package app

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
)

// buildAppliedModels lays the model entries `hearth apply` stored under
// the registry's HEARTH_MODELS_FILE entries, and keeps them in step: a
// change applied on this node takes effect at once, one applied on
// another node of a cluster within the change feed's lag. Stored entries
// this node cannot use (a provider it does not configure) are logged and
// left out, so the node still starts and a corrected apply, or a stored
// deployment declaring their alias provider, brings them in.
func (a *App) buildAppliedModels(registry *providers.Registry) error {
	applied := engine.NewAppliedModels(a.Store, a.Cluster)
	parse := func(entries []json.RawMessage) (*providers.Models, error) {
		if len(entries) == 0 {
			return nil, nil
		}
		return providers.ParseModelEntries(entries)
	}
	a.CheckModels = func(entries []json.RawMessage, aliases []string) error {
		m, err := parse(entries)
		if err != nil {
			return err
		}
		return m.CheckProviders(func(p string) bool { return registry.Known(p) || slices.Contains(aliases, p) })
	}
	load := func(entries []json.RawMessage) {
		m, err := parse(entries)
		if err == nil {
			err = registry.SetApplied(m)
		}
		if err != nil {
			a.log.Error("model entries stored by hearth apply left out", "err", err)
		}
	}
	entries, err := applied.Get(context.Background())
	if err != nil {
		return fmt.Errorf("read the model entries stored by hearth apply: %w", err)
	}
	load(entries)
	applied.Watch(load)
	// Entries naming a stored deployment's alias come into force (or
	// leave) when the deployments change, after their routers.
	if a.StoredDeployments != nil {
		a.StoredDeployments.Watch(func() {
			entries, err := applied.Get(context.Background())
			if err != nil {
				a.log.Error("read the model entries stored by hearth apply", "err", err)
				return
			}
			load(entries)
		})
	}
	a.AppliedModels = applied
	return nil
}
