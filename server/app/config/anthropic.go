package config

import (
	"fmt"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// AnthropicSettings are the settings of the Anthropic-compatible surface
// (docs/openai-and-anthropic.md#claude-code-and-the-anthropic-sdks-messages-api). Config
// embeds them, so their JSON keys sit at the top level of the config
// file. Every node of a cluster reads its own; give them all the same.
type AnthropicSettings struct {
	// AnthropicModelAliases maps bare model names of /anthropic/v1/messages
	// to models: "name=provider:model,name2=pipe:<name>", "*" for any
	// other bare name.
	AnthropicModelAliases string `json:"anthropic_model_aliases"`
	// modelAliases is AnthropicModelAliases parsed, set by Validate.
	modelAliases map[string]string
}

// modelAliases allows HEARTH_ANTHROPIC_MODEL_ALIASES.
var modelAliases = textCheck("comma-separated name=model pairs", "claude", func(s string) error {
	_, err := parseModelAliases(s)
	return err
})

// parseModelAliases reads "name=model,name=model": each name bare (no
// ':' or '/') and named once, each model provider:model, provider/model
// or pipe:<name>. nil for an empty setting.
func parseModelAliases(s string) (map[string]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	out := map[string]string{}
	for _, pair := range strings.Split(s, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		name, model, ok := strings.Cut(pair, "=")
		name, model = strings.TrimSpace(name), strings.TrimSpace(model)
		if !ok || name == "" || model == "" {
			return nil, fmt.Errorf("%q: want name=provider:model, such as claude-sonnet-4-5=ollama:qwen3-coder", pair)
		}
		if strings.ContainsAny(name, ":/") {
			return nil, fmt.Errorf("%q: the name must be a bare model name (no : or /): provider:model names already work", name)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("%q is mapped twice", name)
		}
		if _, err := engine.ParseModelTarget("model", model); err != nil {
			return nil, fmt.Errorf("%q: want provider:model, provider/model or pipe:<name>", model)
		}
		out[name] = model
	}
	return out, nil
}
