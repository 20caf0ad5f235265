package providers

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// deploymentInfix joins a provider and a deployment name in the name its
// errors give it ("local deployment gpu1").
const deploymentInfix = " deployment "

// deployedSet is the models served by deployments, by model id, and the
// alias providers they declare (neither built in nor configured), sorted.
type deployedSet struct {
	models  map[engine.ModelRef]*deployedModel
	aliases []string
}

// deploySource is what the registry builds deployed models from: the
// configuration's list (read-only) and the clock, counter and callers.
type deploySource struct {
	mu       sync.Mutex
	declared []ModelDeployments
	cfg      Config
	mk       func(string) caller
}

// buildDeployments makes the router of every model with deployments
// (Config.Deployments). A deployment's adapter speaks its provider's wire
// format to its own base URL; with more than one deployment its calls are
// not retried on the same server (the next deployment is tried instead).
func (r *Registry) buildDeployments(cfg Config, mk func(string) caller) error {
	if err := ValidateDeployments("deployments", cfg.Deployments); err != nil {
		return err
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	r.deploying.declared, r.deploying.cfg, r.deploying.mk = cfg.Deployments, cfg, mk
	r.deploy.Store(r.buildSet(cfg.Deployments, nil))
	return nil
}

// buildSet makes the routers of list. A model whose declaration is the
// same as in old keeps old's router, and with it its deployments' health,
// latency and calls in flight.
func (r *Registry) buildSet(list []ModelDeployments, old *deployedSet) *deployedSet {
	set := &deployedSet{models: map[engine.ModelRef]*deployedModel{}}
	src := &r.deploying
	for _, md := range list {
		ref, _ := engine.ParseModelID("model", strings.TrimSpace(md.Model))
		ref.Provider = strings.ToLower(ref.Provider)
		if md.Strategy == "" {
			md.Strategy = StrategyRoundRobin
		}
		if !r.baseKnown(ref.Provider) && !slices.Contains(set.aliases, ref.Provider) {
			// An alias provider: OpenAI-compatible, served by its
			// deployments only, keyless unless a deployment has a key.
			set.aliases = append(set.aliases, ref.Provider)
		}
		if old != nil {
			if m, ok := old.models[ref]; ok && m.strategy == md.Strategy && slices.Equal(m.declared, md.Servers) {
				set.models[ref] = m
				continue
			}
		}
		m := &deployedModel{id: ref.String(), strategy: md.Strategy, now: src.cfg.Now, counter: src.cfg.Counter,
			probeDone: src.cfg.probeDone, declared: slices.Clone(md.Servers)}
		for _, d := range md.Servers {
			c := src.mk(ref.Provider)
			c.provider = ref.Provider + deploymentInfix + d.Name
			if len(md.Servers) > 1 {
				c.retry.MaxAttempts = 1
			}
			base := strings.TrimRight(d.BaseURL, "/")
			dep := &deployment{Deployment: d, model: d.UpstreamModel, probe: probeModels(c, base),
				tpmKey: "deployment-tpm/" + ref.String() + "/" + d.Name}
			dep.chat = pooledChat{inner: r.adapterAt(ref.Provider, base, c, src.cfg.Models), pool: r.pool, provider: c.provider}
			m.deps = append(m.deps, dep)
		}
		set.models[ref] = m
	}
	sort.Strings(set.aliases)
	return set
}

// deployedNow is the deployed models in force.
func (r *Registry) deployedNow() *deployedSet {
	if set := r.deploy.Load(); set != nil {
		return set
	}
	return &deployedSet{}
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
	set := r.deploy.Load()
	if set == nil || len(set.models) == 0 {
		return nil, false
	}
	m, ok := set.models[ref]
	if !ok {
		return nil, false
	}
	return deployedChat{m}, true
}

// aliasError is the error of a model of an alias provider (one declared
// by deployments only) that has no deployments; nil for other providers.
func (r *Registry) aliasError(ref engine.ModelRef) error {
	set := r.deployedNow()
	if !slices.Contains(set.aliases, ref.Provider) {
		return nil
	}
	var ids []string
	for dr := range set.models {
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
	for dr := range r.deployedNow().models {
		p, id := dr.Provider, dr.String()
		if !slices.ContainsFunc(cat[p], func(m engine.ModelInfo) bool { return m.ID == id }) {
			cat[p] = append(cat[p], engine.ModelInfo{ID: id, Provider: p, Type: "text", Source: "operator"})
		}
	}
	return cat
}

// HasDeployments reports whether some model is served by deployments.
func (r *Registry) HasDeployments() bool { return len(r.deployedNow().models) > 0 }

// Deployments returns the state of every deployment on this node, by
// model id then in declared order.
func (r *Registry) Deployments() []engine.DeploymentStatus {
	set := r.deployedNow()
	models := make([]*deployedModel, 0, len(set.models))
	for _, m := range set.models {
		models = append(models, m)
	}
	slices.SortFunc(models, func(a, b *deployedModel) int { return strings.Compare(a.id, b.id) })
	var out []engine.DeploymentStatus
	for _, m := range models {
		out = append(out, m.status()...)
	}
	return out
}
