package app

import (
	"context"
	"sync"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
)

// buildStoredDeployments routes the deployments stored through the API or
// `hearth apply` beside the configuration's, and keeps the registry in
// step with them: a change made on this node takes effect at once, one
// made on another node of a cluster within the change feed's lag. A model
// the configuration declares keeps its configured deployments: storing one
// for it is refused (CONFLICT), and records stored before the
// configuration declared it are logged and left out.
func (a *App) buildStoredDeployments(registry *providers.Registry, secret []byte) error {
	stored, err := engine.NewStoredDeployments(a.Store, a.Cluster, secret)
	if err != nil {
		return err
	}
	stored.SetCheck(func(d *engine.StoredDeployment) error {
		if registry.DeclaredModel(d.Model) {
			return engine.Errorf(engine.CodeConflict, "model %s: its deployments are declared in the configuration (config file or HEARTH_DEPLOYMENTS), which stored deployments cannot change", d.Model)
		}
		return nil
	})
	var mu sync.Mutex
	load := func() {
		// One load at a time, each reading the store afresh: the last
		// to run sees the last change.
		mu.Lock()
		defer mu.Unlock()
		recs, err := stored.Records(context.Background())
		if err == nil {
			err = registry.SetStored(GroupDeployments(recs))
		}
		if err != nil {
			a.log.Error("stored deployments left out", "err", err)
		}
	}
	load()
	stored.Watch(load)
	a.StoredDeployments = stored
	a.Deps.StoredDeployments = stored
	a.Deps.ConfigDeployments = func() []engine.StoredDeployment { return configDeployments(registry.Declared()) }
	return nil
}

// GroupDeployments turns stored deployments (sorted by name) into the
// registry's per-model declarations, models in order of first appearance;
// a model's strategy is the one its deployments set.
func GroupDeployments(recs []engine.StoredDeployment) []providers.ModelDeployments {
	var out []providers.ModelDeployments
	at := map[string]int{}
	for _, d := range recs {
		i, ok := at[d.Model]
		if !ok {
			i = len(out)
			at[d.Model] = i
			out = append(out, providers.ModelDeployments{Model: d.Model})
		}
		if d.Strategy != "" {
			out[i].Strategy = d.Strategy
		}
		out[i].Servers = append(out[i].Servers, providers.Deployment{Name: d.Name, BaseURL: d.BaseURL, APIKey: d.APIKey,
			UpstreamModel: d.UpstreamModel, Weight: d.Weight, MaxConcurrency: d.MaxConcurrency, TPM: d.TPM})
	}
	return out
}

// configDeployments shows the configuration's deployments in the shape of
// stored ones, keys masked.
func configDeployments(list []providers.ModelDeployments) []engine.StoredDeployment {
	var out []engine.StoredDeployment
	for _, md := range list {
		for _, d := range md.Servers {
			sd := engine.StoredDeployment{Name: d.Name, Model: md.Model, BaseURL: d.BaseURL, UpstreamModel: d.UpstreamModel,
				Strategy: md.Strategy, Weight: d.Weight, MaxConcurrency: d.MaxConcurrency, TPM: d.TPM}
			if k := d.APIKey; k != "" {
				sd.APIKeyLast4 = k[max(0, len(k)-4):]
			}
			out = append(out, sd)
		}
	}
	return out
}
