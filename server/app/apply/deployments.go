package apply

import (
	"context"
	"fmt"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// DeploymentSpec declares a stored deployment: one more server of a model
// (docs/providers.md#deployments-one-model-on-several-servers). Its key, when it
// has one, comes from an environment variable (key_env) or a file
// (key_file); an inline key is refused so no secret lands in the files.
// Deployments are the server's, not an owner's: --prune removes every
// stored deployment the files do not declare.
type DeploymentSpec struct {
	Name           string `json:"name"`
	Model          string `json:"model"`
	BaseURL        string `json:"base_url"`
	UpstreamModel  string `json:"upstream_model,omitempty"`
	Strategy       string `json:"strategy,omitempty"`
	Weight         int    `json:"weight,omitempty"`
	MaxConcurrency int    `json:"max_concurrency,omitempty"`
	TPM            int64  `json:"tpm,omitempty"`
	KeyEnv         string `json:"key_env,omitempty"`
	KeyFile        string `json:"key_file,omitempty"`
	Key            string `json:"key,omitempty"`
}

// deploymentKey reads a deployment's key ("" when it declares none).
func (pl *planner) deploymentKey(d DeploymentSpec) (string, error) {
	if d.KeyEnv == "" && d.KeyFile == "" {
		return "", nil
	}
	return pl.read("deployment "+d.Name, d.KeyEnv, d.KeyFile)
}

// normalModel is model with its provider lower-cased, as the store keeps it.
func normalModel(model string) string {
	if ref, err := engine.ParseModelID("model", strings.TrimSpace(model)); err == nil {
		return ref.String()
	}
	return model
}

// deploymentDiff lists the fields of have that d changes ("" : none).
func deploymentDiff(have engine.StoredDeployment, d DeploymentSpec) []string {
	var out []string
	str := func(field, a, b string) {
		if a != b {
			out = append(out, fmt.Sprintf("%s %q -> %q", field, a, b))
		}
	}
	num := func(field string, a, b int64) {
		if a != b {
			out = append(out, fmt.Sprintf("%s %d -> %d", field, a, b))
		}
	}
	str("model", have.Model, normalModel(d.Model))
	str("base_url", have.BaseURL, strings.TrimSpace(d.BaseURL))
	str("upstream_model", have.UpstreamModel, strings.TrimSpace(d.UpstreamModel))
	str("strategy", have.Strategy, d.Strategy)
	num("weight", int64(have.Weight), int64(d.Weight))
	num("max_concurrency", int64(have.MaxConcurrency), int64(d.MaxConcurrency))
	num("tpm", have.TPM, d.TPM)
	return out
}

// deployments plans the stored deployments: created when missing, updated
// when a field or the key differs, deleted under Prune when undeclared.
func (pl *planner) deployments(ctx context.Context) error {
	svc := pl.svc.Deployments
	if svc == nil {
		if len(pl.spec.Deployments) > 0 {
			return fmt.Errorf("deployments: this application does not store deployments")
		}
		return nil
	}
	list, err := svc.List(ctx)
	if err != nil {
		return err
	}
	have := map[string]engine.StoredDeployment{}
	for _, d := range list {
		have[d.Name] = d
	}
	declared := map[string]bool{}
	for _, d := range pl.spec.Deployments {
		declared[d.Name] = true
		if err := engine.CheckDeployment(engine.StoredDeployment{Name: d.Name, Model: d.Model, BaseURL: d.BaseURL,
			UpstreamModel: d.UpstreamModel, Strategy: d.Strategy, Weight: d.Weight, MaxConcurrency: d.MaxConcurrency, TPM: d.TPM}); err != nil {
			msg := err.Error()
			if e, ok := err.(*engine.Error); ok {
				msg = e.Message
			}
			return fmt.Errorf("deployment %s: %s", d.Name, msg)
		}
		key, err := pl.deploymentKey(d)
		if err != nil {
			return err
		}
		cur, ok := have[d.Name]
		if !ok {
			pl.plan.add("create", "deployment", d.Name, normalModel(d.Model)+" at "+d.BaseURL, func(ctx context.Context) error {
				_, err := svc.Create(ctx, engine.StoredDeployment{Name: d.Name, Model: d.Model, BaseURL: d.BaseURL, APIKey: key,
					UpstreamModel: d.UpstreamModel, Strategy: d.Strategy, Weight: d.Weight, MaxConcurrency: d.MaxConcurrency, TPM: d.TPM})
				return err
			})
			continue
		}
		diff := deploymentDiff(cur, d)
		same, err := svc.HoldsKey(ctx, d.Name, key)
		if err != nil {
			return err
		}
		if !same {
			diff = append(diff, "key")
		}
		if len(diff) == 0 {
			continue
		}
		pl.plan.add("update", "deployment", d.Name, strings.Join(diff, ", "), func(ctx context.Context) error {
			_, err := svc.Update(ctx, d.Name, engine.DeploymentPatch{Model: &d.Model, BaseURL: &d.BaseURL, APIKey: &key,
				UpstreamModel: &d.UpstreamModel, Strategy: &d.Strategy, Weight: &d.Weight, MaxConcurrency: &d.MaxConcurrency, TPM: &d.TPM})
			return err
		})
	}
	if pl.opts.Prune {
		for _, d := range list {
			if !declared[d.Name] {
				pl.plan.add("delete", "deployment", d.Name, d.Model, func(ctx context.Context) error { return svc.Delete(ctx, d.Name) })
			}
		}
	}
	return nil
}

// exportDeployments adds the stored deployments; a deployment with a key
// names the environment variable to put it in (key_env):
// HEARTH_DEPLOYMENT_<NAME>_KEY.
func exportDeployments(ctx context.Context, svc Services, out *Spec) error {
	if svc.Deployments == nil {
		return nil
	}
	list, err := svc.Deployments.List(ctx)
	if err != nil {
		return err
	}
	for _, d := range list {
		s := DeploymentSpec{Name: d.Name, Model: d.Model, BaseURL: d.BaseURL, UpstreamModel: d.UpstreamModel, Strategy: d.Strategy,
			Weight: d.Weight, MaxConcurrency: d.MaxConcurrency, TPM: d.TPM}
		if d.APIKeyLast4 != "" {
			s.KeyEnv = DeploymentKeyEnv(d.Name)
		}
		out.Deployments = append(out.Deployments, s)
	}
	return nil
}

// DeploymentKeyEnv is the environment variable an exported deployment's
// key is read from: HEARTH_DEPLOYMENT_<NAME>_KEY, upper-cased, other
// characters turned into '_'.
func DeploymentKeyEnv(name string) string { return envVar("HEARTH_DEPLOYMENT", name, "KEY") }
