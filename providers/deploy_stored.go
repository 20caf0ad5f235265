package providers

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// Stored deployments (declared through the API or `hearth apply`) join the
// configuration's at run time: SetStored swaps the routers in one step,
// without a restart. A model the configuration declares keeps its
// configured deployments only; stored ones for it are left out.

// SetStored makes list the stored deployments in force, beside the
// configuration's. Models whose declaration did not change keep their
// routers and health. The returned error names the stored entries left
// out (a model the configuration now declares, or an invalid entry); the
// others are in force all the same.
func (r *Registry) SetStored(list []ModelDeployments) error {
	src := &r.deploying
	src.mu.Lock()
	defer src.mu.Unlock()
	if src.mk == nil {
		return errors.New("providers: registry not built by New")
	}
	var errs []error
	keep := make([]ModelDeployments, 0, len(list))
	for _, md := range list {
		if r.DeclaredModel(md.Model) {
			errs = append(errs, fmt.Errorf("stored deployments of %s left out: the configuration declares that model", md.Model))
			continue
		}
		if err := ValidateDeployments("stored deployments", []ModelDeployments{md}); err != nil {
			errs = append(errs, fmt.Errorf("stored deployments of %s left out: %w", md.Model, err))
			continue
		}
		keep = append(keep, md)
	}
	all := append(slices.Clone(src.declared), keep...)
	r.deploy.Store(r.buildSet(all, r.deploy.Load()))
	return errors.Join(errs...)
}

// DeclaredModel reports whether the configuration (file or
// HEARTH_DEPLOYMENTS) declares the deployments of model ("provider:model").
func (r *Registry) DeclaredModel(model string) bool {
	ref, err := engine.ParseModelID("model", strings.TrimSpace(model))
	if err != nil {
		return false
	}
	for _, md := range r.deploying.declared {
		d, err := engine.ParseModelID("model", strings.TrimSpace(md.Model))
		if err == nil && strings.EqualFold(d.Provider, ref.Provider) && d.Model == ref.Model {
			return true
		}
	}
	return false
}

// Declared returns the configuration's deployments (read-only).
func (r *Registry) Declared() []ModelDeployments { return slices.Clone(r.deploying.declared) }
