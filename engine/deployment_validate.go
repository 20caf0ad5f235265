package engine

import (
	"net/url"
	"regexp"
	"strings"
)

// deploymentNameRE is the rule of a stored deployment's name (the same as
// the configuration's deployment names).
var deploymentNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// deploymentStrategies are the routing strategies a model may use.
var deploymentStrategies = map[string]bool{"": true, "round-robin": true, "least-busy": true, "latency": true}

// normalize trims d's fields and checks each; the error names the field
// and the rule.
func (d *StoredDeployment) normalize() error {
	d.Name = strings.TrimSpace(d.Name)
	if !deploymentNameRE.MatchString(d.Name) {
		return FieldError("name", "%q must be 1-64 letters, digits, '.', '-' or '_', starting with a letter or digit", d.Name)
	}
	ref, err := ParseModelID("model", strings.TrimSpace(d.Model))
	if err != nil {
		return FieldError("model", "%q must be provider:model, such as local:llama-70b", d.Model)
	}
	ref.Provider = strings.ToLower(ref.Provider)
	if !providerRE.MatchString(ref.Provider) {
		return FieldError("model", "provider %q of %q must be lowercase letters, digits and '-'", ref.Provider, d.Model)
	}
	if ref.Provider == "hearth" {
		return FieldError("model", "%q: the offline hearth provider has no deployments", d.Model)
	}
	d.Model = ref.String()
	d.BaseURL = strings.TrimSpace(d.BaseURL)
	if u, err := url.Parse(d.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return FieldError("base_url", "%q must be an absolute http(s) URL such as http://10.0.0.5:8000/v1", d.BaseURL)
	}
	d.UpstreamModel = strings.TrimSpace(d.UpstreamModel)
	if strings.ContainsAny(d.UpstreamModel, " \t\r\n") {
		return FieldError("upstream_model", "%q must not contain spaces", d.UpstreamModel)
	}
	if !deploymentStrategies[d.Strategy] {
		return FieldError("strategy", "%q: use round-robin, least-busy or latency", d.Strategy)
	}
	if d.Weight < 0 || d.Weight > 1000 {
		return FieldError("weight", "%d must be from 0 (meaning 1) to 1000", d.Weight)
	}
	if d.MaxConcurrency < 0 {
		return FieldError("max_concurrency", "%d must be 0 (no limit) or more", d.MaxConcurrency)
	}
	if d.TPM < 0 {
		return FieldError("tpm", "%d must be 0 (no limit) or more", d.TPM)
	}
	return nil
}

// CheckDeployment validates d as Create would, without storing it.
func CheckDeployment(d StoredDeployment) error { return d.normalize() }
