package providers

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// Routing strategies of a model's deployments.
const (
	// StrategyRoundRobin spreads calls over the deployments in proportion
	// to their weights (smooth weighted round-robin); the default.
	StrategyRoundRobin = "round-robin"
	// StrategyLeastBusy sends a call to the deployment with the fewest
	// calls in flight on this node.
	StrategyLeastBusy = "least-busy"
	// StrategyLatency sends a call to the deployment with the lowest
	// recent latency (an average of time to first token for streams and
	// of whole calls otherwise, recent calls weighing most).
	StrategyLatency = "latency"
)

// ModelDeployments declares the servers ("deployments") that serve one
// model id. Calls to Model are spread over Servers by Strategy; a server
// that fails cools down and its calls go to the others.
type ModelDeployments struct {
	// Model is the id callers name, "provider:model". A provider that is
	// neither built in nor configured becomes an OpenAI-compatible
	// provider served by these deployments only (an alias such as
	// "local:llama-70b").
	Model string `json:"model"`
	// Strategy is round-robin (default), least-busy or latency.
	Strategy string `json:"strategy,omitempty"`
	// Servers are the deployments, at least one.
	Servers []Deployment `json:"servers"`
}

// Deployment is one server of a model: a base URL, its own key, and the
// limits it is given.
type Deployment struct {
	// Name identifies the deployment in errors, GET /v1/providers, metrics
	// and the run log; unique within the model. Letters, digits, '-', '_'
	// and '.'.
	Name string `json:"name"`
	// BaseURL is the server's API root, version segment included
	// (http://10.0.0.5:8000/v1 for vLLM).
	BaseURL string `json:"base_url"`
	// APIKey, when set, is the key sent to this server; otherwise the
	// call's own key (request header, keyset or server key) is sent.
	APIKey string `json:"api_key,omitempty"`
	// UpstreamModel is the model name sent to this server; empty means the
	// model part of ModelDeployments.Model.
	UpstreamModel string `json:"upstream_model,omitempty"`
	// Weight is the deployment's share under round-robin (1 to 1000;
	// 0 means 1).
	Weight int `json:"weight,omitempty"`
	// MaxConcurrency bounds the calls in flight to it from this node (0:
	// no bound).
	MaxConcurrency int `json:"max_concurrency,omitempty"`
	// TPM bounds the tokens (prompt and completion) it is given per
	// minute, counted across the cluster (0: no bound).
	TPM int64 `json:"tpm,omitempty"`
}

var deploymentName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ValidateDeployments checks a deployments list; every error names the
// field as field[i].servers[j].name and says the rule.
func ValidateDeployments(field string, list []ModelDeployments) error {
	var errs []error
	seen := map[string]bool{}
	for i, md := range list {
		f := fmt.Sprintf("%s[%d]", field, i)
		ref, err := engine.ParseModelID(f+".model", strings.TrimSpace(md.Model))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s.model %q: must be provider:model, such as local:llama-70b", f, md.Model))
		} else if ref.Provider == HearthProvider {
			errs = append(errs, fmt.Errorf("%s.model %q: the offline hearth provider has no deployments", f, md.Model))
		} else if seen[ref.String()] {
			errs = append(errs, fmt.Errorf("%s.model %q: declared twice", f, md.Model))
		} else {
			seen[ref.String()] = true
		}
		switch md.Strategy {
		case "", StrategyRoundRobin, StrategyLeastBusy, StrategyLatency:
		default:
			errs = append(errs, fmt.Errorf("%s.strategy %q: use round-robin, least-busy or latency", f, md.Strategy))
		}
		if len(md.Servers) == 0 {
			errs = append(errs, fmt.Errorf("%s.servers: must list at least one deployment", f))
		}
		if len(md.Servers) > 64 {
			errs = append(errs, fmt.Errorf("%s.servers: at most 64 deployments, got %d", f, len(md.Servers)))
		}
		names := map[string]bool{}
		for j, d := range md.Servers {
			g := fmt.Sprintf("%s.servers[%d]", f, j)
			switch {
			case !deploymentName.MatchString(d.Name):
				errs = append(errs, fmt.Errorf("%s.name %q: must be 1-64 letters, digits, '.', '-' or '_'", g, d.Name))
			case names[d.Name]:
				errs = append(errs, fmt.Errorf("%s.name %q: used twice in %s", g, d.Name, md.Model))
			}
			names[d.Name] = true
			if u, err := url.Parse(d.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				errs = append(errs, fmt.Errorf("%s.base_url %q: must be an absolute http(s) URL", g, d.BaseURL))
			}
			if d.Weight < 0 || d.Weight > 1000 {
				errs = append(errs, fmt.Errorf("%s.weight %d: must be from 0 (meaning 1) to 1000", g, d.Weight))
			}
			if d.MaxConcurrency < 0 {
				errs = append(errs, fmt.Errorf("%s.max_concurrency %d: must be 0 (no limit) or more", g, d.MaxConcurrency))
			}
			if d.TPM < 0 {
				errs = append(errs, fmt.Errorf("%s.tpm %d: must be 0 (no limit) or more", g, d.TPM))
			}
			if strings.ContainsAny(d.UpstreamModel, " \t\r\n") {
				errs = append(errs, fmt.Errorf("%s.upstream_model %q: must not contain spaces", g, d.UpstreamModel))
			}
		}
	}
	return errors.Join(errs...)
}
