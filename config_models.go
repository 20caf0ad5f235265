package main

import (
	"fmt"

	"github.com/hearth-dev/hearth/providers"
)

// ModelsSettings name the operator's models file
// (docs/providers.md#model-rules-and-prices-from-a-file). Config embeds them,
// so their JSON key sits at the top level of the config file.
type ModelsSettings struct {
	// ModelsFile is a YAML or JSON file of model entries (prices, tiers,
	// context window, retirement, parameter rules) laid over the built-in
	// catalogue and rules.
	ModelsFile string `json:"models_file"`
	// models is the file's content, loaded and checked by Validate.
	models *providers.Models
}

func (c *Config) modelsVars() []configVar {
	return []configVar{
		{env: "HEARTH_MODELS_FILE", flag: "models-file", usage: "YAML or JSON file of model prices, retirements and parameter rules laid over the built-in catalogue", str: &c.ModelsFile},
	}
}

// validateModels loads HEARTH_MODELS_FILE; every error names the file,
// the entry and the field.
func (c *Config) validateModels() []error {
	c.models = nil
	if c.ModelsFile == "" {
		return nil
	}
	m, err := providers.LoadModelsFile(c.ModelsFile)
	if err != nil {
		return []error{fmt.Errorf("HEARTH_MODELS_FILE %w", err)}
	}
	c.models = m
	return nil
}
