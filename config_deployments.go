package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
)

// DeploymentSettings declare the models served by several servers
// (docs/providers.md#deployments-one-model-on-several-servers). Config embeds
// them, so "deployments" sits at the top level of the config file.
type DeploymentSettings struct {
	// Deployments is the config file's list.
	Deployments []providers.ModelDeployments `json:"deployments,omitempty"`
	// DeploymentsJSON is HEARTH_DEPLOYMENTS: the same list as JSON, which
	// replaces the config file's when set.
	DeploymentsJSON string `json:"-"`
}

func (c *Config) deploymentVars() []configVar {
	return []configVar{
		{env: "HEARTH_DEPLOYMENTS", flag: "deployments", usage: "JSON list of models served by several servers (replaces the config file's \"deployments\")", str: &c.DeploymentsJSON},
	}
}

// validateDeployments reads HEARTH_DEPLOYMENTS over the file's list and
// checks every entry; errors name the source and the field.
func (c *Config) validateDeployments() []error {
	from := "config file"
	if s := strings.TrimSpace(c.DeploymentsJSON); s != "" {
		from = "HEARTH_DEPLOYMENTS"
		var list []providers.ModelDeployments
		dec := json.NewDecoder(strings.NewReader(s))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&list); err != nil {
			return []error{fmt.Errorf("HEARTH_DEPLOYMENTS: not a JSON list of deployments: %v", err)}
		}
		c.Deployments = list
	}
	if err := providers.ValidateDeployments("deployments", c.Deployments); err != nil {
		var errs []error
		for _, line := range strings.Split(err.Error(), "\n") {
			errs = append(errs, fmt.Errorf("%s: %s", from, line))
		}
		return errs
	}
	return nil
}

// deploymentProvider reports whether provider is the provider of a
// deployed model (an alias such as "local" needs no other declaration).
func (c *Config) deploymentProvider(provider string) bool {
	for _, md := range c.Deployments {
		if ref, err := engine.ParseModelID("model", strings.TrimSpace(md.Model)); err == nil && strings.EqualFold(ref.Provider, provider) {
			return true
		}
	}
	return false
}
