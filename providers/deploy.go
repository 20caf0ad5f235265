package providers

import (
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// deploymentInfix joins a provider and a deployment name in the name its
// errors give it ("local deployment gpu1").
const deploymentInfix = " deployment "

// buildDeployments makes the router of every model with deployments
// (Config.Deployments). A deployment's adapter speaks its provider's wire
// format to its own base URL; with more than one deployment its calls are
// not retried on the same server (the next deployment is tried instead).
func (r *Registry) buildDeployments(cfg Config, mk func(string) caller) error {
	if len(cfg.Deployments) == 0 {
		return nil
	}
	if err := ValidateDeployments("deployments", cfg.Deployments); err != nil {
		return err
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	r.deployed = map[engine.ModelRef]*deployedModel{}
	for _, md := range cfg.Deployments {
		ref, _ := engine.ParseModelID("model", strings.TrimSpace(md.Model))
		ref.Provider = strings.ToLower(ref.Provider)
		if !r.Known(ref.Provider) {
			// An alias provider: OpenAI-compatible, served by its
			// deployments only, keyless unless a deployment has a key.
			r.needKey[ref.Provider] = false
			r.providers = append(r.providers, ref.Provider)
			sort.Strings(r.providers)
			r.aliases = append(r.aliases, ref.Provider)
		}
		m := &deployedModel{id: ref.String(), strategy: md.Strategy, now: now, counter: cfg.Counter, probeDone: cfg.probeDone}
		if m.strategy == "" {
			m.strategy = StrategyRoundRobin
		}
		for _, d := range md.Servers {
			c := mk(ref.Provider)
			c.provider = ref.Provider + deploymentInfix + d.Name
			if len(md.Servers) > 1 {
				c.retry.MaxAttempts = 1
			}
			base := strings.TrimRight(d.BaseURL, "/")
			dep := &deployment{Deployment: d, model: d.UpstreamModel, probe: probeModels(c, base),
				tpmKey: "deployment-tpm/" + ref.String() + "/" + d.Name}
			dep.chat = pooledChat{inner: r.adapterAt(ref.Provider, base, c, cfg.Models), pool: r.pool, provider: c.provider}
			m.deps = append(m.deps, dep)
		}
		r.deployed[ref] = m
	}
	return nil
}

// adapterAt is the chat adapter of provider's wire format at base.
func (r *Registry) adapterAt(provider, base string, c caller, models *Models) engine.ChatModel {
	switch provider {
	case "anthropic":
		return &Anthropic{baseURL: base, c: c}
	case "google":
		return &Google{baseURL: base, c: c}
	case "cohere":
		return &Cohere{baseURL: base, c: c}
	}
	h, ok := hosts[provider]
	if !ok {
		hc := *hosts["openai-compatible"]
		hc.name = provider
		h = &hc
	}
	if models != nil {
		hc := *h
		hc.models = models
		h = &hc
	}
	return &OpenAI{host: h, baseURL: base, chatURL: base + "/chat/completions", c: c}
}

// deployedChatModel returns the router of ref when it has deployments.
func (r *Registry) deployedChatModel(ref engine.ModelRef) (engine.ChatModel, bool) {
	if len(r.deployed) == 0 {
		return nil, false
	}
	m, ok := r.deployed[ref]
	if !ok {
		return nil, false
	}
	return deployedChat{m}, true
}

// aliasError is the error of a model of an alias provider (one declared
// by deployments only) that has no deployments; nil for other providers.
func (r *Registry) aliasError(ref engine.ModelRef) error {
	if !slices.Contains(r.aliases, ref.Provider) {
		return nil
	}
	var ids []string
	for dr := range r.deployed {
		if dr.Provider == ref.Provider {
			ids = append(ids, dr.String())
		}
	}
	slices.Sort(ids)
	return engine.FieldError("model", "model %q has no deployments (provider %s serves %s)", ref.String(), ref.Provider, strings.Join(ids, ", "))
}

// withDeployed adds to a catalogue the deployed models it lacks, as text
// models from the operator.
func (r *Registry) withDeployed(cat map[string][]engine.ModelInfo) map[string][]engine.ModelInfo {
	for dr := range r.deployed {
		p, id := dr.Provider, dr.String()
		if !slices.ContainsFunc(cat[p], func(m engine.ModelInfo) bool { return m.ID == id }) {
			cat[p] = append(cat[p], engine.ModelInfo{ID: id, Provider: p, Type: "text", Source: "operator"})
		}
	}
	return cat
}

// HasDeployments reports whether some model is served by deployments.
func (r *Registry) HasDeployments() bool { return len(r.deployed) > 0 }

// Deployments returns the state of every deployment on this node, by
// model id then in declared order.
func (r *Registry) Deployments() []engine.DeploymentStatus {
	models := make([]*deployedModel, 0, len(r.deployed))
	for _, m := range r.deployed {
		models = append(models, m)
	}
	slices.SortFunc(models, func(a, b *deployedModel) int { return strings.Compare(a.id, b.id) })
	var out []engine.DeploymentStatus
	for _, m := range models {
		out = append(out, m.status()...)
	}
	return out
}
