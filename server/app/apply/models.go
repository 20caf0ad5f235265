package apply

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
)

// The "models" of apply files are model entries in the shape of
// HEARTH_MODELS_FILE's (prices, tiers, cache pricing, context window,
// retirement, rules). Apply stores them as one list on the server, under
// the HEARTH_MODELS_FILE entries and over the built-in catalogue; every
// node of a cluster reads the same stored list.

// modelKey names an entry for duplicate checks across files.
type modelKey struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Pattern  string `json:"pattern"`
}

// checkModels validates the entries one file declares; errors name the
// entry and the field.
func checkModels(entries []json.RawMessage) error {
	_, err := providers.ParseModelEntries(entries)
	return err
}

// mergeModels appends one file's entries to the spec's, refusing an entry
// another file already declares.
func (s *Spec) mergeModels(file string, entries []json.RawMessage) error {
	if s.modelFiles == nil {
		s.modelFiles = map[modelKey]string{}
	}
	for i, raw := range entries {
		var k modelKey
		if err := json.Unmarshal(raw, &k); err != nil {
			return fmt.Errorf("%s: models[%d]: %w", file, i, err)
		}
		if other, dup := s.modelFiles[k]; dup {
			return fmt.Errorf("%s: models[%d] (%s:%s): already declared in %s", file, i, k.Provider, k.Model+k.Pattern, other)
		}
		s.modelFiles[k] = file
	}
	s.Models = append(s.Models, entries...)
	s.modelsDeclared = true
	return nil
}

// canonicalModels is entries with their keys sorted and no spaces, so the
// declared and stored lists compare equal when they say the same.
func canonicalModels(entries []json.RawMessage) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, 0, len(entries))
	for _, raw := range entries {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, err
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// models plans the stored model entries: replaced when the files declare
// a different list, removed under Prune when no file declares any.
func (pl *planner) models(ctx context.Context) error {
	if pl.svc.Models == nil {
		if pl.spec.modelsDeclared {
			return fmt.Errorf("models: this application does not store model entries")
		}
		return nil
	}
	have, err := pl.svc.Models.Get(ctx)
	if err != nil {
		return err
	}
	if !pl.spec.modelsDeclared {
		if pl.opts.Prune && len(have) > 0 {
			pl.plan.add("delete", "models", "models", fmt.Sprintf("%d entries", len(have)), func(ctx context.Context) error {
				return pl.svc.Models.Set(ctx, nil)
			})
		}
		return nil
	}
	want, err := canonicalModels(pl.spec.Models)
	if err != nil {
		return err
	}
	if slices.EqualFunc(want, have, func(a, b json.RawMessage) bool { return string(a) == string(b) }) {
		return nil
	}
	if pl.svc.CheckModels != nil {
		if err := pl.svc.CheckModels(want, pl.deployedProviders()); err != nil {
			return fmt.Errorf("models: %w", err)
		}
	}
	action := "update"
	if len(have) == 0 {
		action = "create"
	}
	if len(want) == 0 {
		action = "delete"
	}
	pl.plan.add(action, "models", "models", fmt.Sprintf("%d entries", len(want)), func(ctx context.Context) error {
		return pl.svc.Models.Set(ctx, want)
	})
	return nil
}

// exportModels adds the stored model entries.
func exportModels(ctx context.Context, svc Services, out *Spec) error {
	if svc.Models == nil {
		return nil
	}
	have, err := svc.Models.Get(ctx)
	out.Models = have
	return err
}

// deployedProviders lists the providers of the deployments the files
// declare: aliases their model entries may name before they are stored.
func (pl *planner) deployedProviders() []string {
	var out []string
	for _, d := range pl.spec.Deployments {
		if ref, err := engine.ParseModelID("model", strings.TrimSpace(d.Model)); err == nil {
			out = append(out, ref.Provider)
		}
	}
	return out
}
