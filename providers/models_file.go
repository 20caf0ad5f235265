package providers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"
)

// modelsFile is the shape of HEARTH_MODELS_FILE (YAML or JSON).
type modelsFile struct {
	Models []json.RawMessage `json:"models"`
}

// modelsFileEntry is one entry of HEARTH_MODELS_FILE: a model (exact id)
// or a family (pattern) of one provider, with any of prices, context
// window, retirement and parameter rules.
type modelsFileEntry struct {
	Provider      string          `json:"provider"`
	Model         string          `json:"model"`
	Pattern       string          `json:"pattern"`
	Prompt        *float64        `json:"prompt"`
	Completion    *float64        `json:"completion"`
	Tiers         []PriceTier     `json:"tiers"`
	Image         *float64        `json:"image"`
	Sizes         []string        `json:"sizes"`
	Qualities     []string        `json:"qualities"`
	ContextWindow *int            `json:"context_window"`
	Retired       *Retirement     `json:"retired"`
	Cache         *CachePricing   `json:"cache"`
	Estimated     *bool           `json:"estimated"`
	Rules         json.RawMessage `json:"rules"`
}

// ruleSpec is the data form of a modelRule (params.go), the rules of the
// OpenAI-wire providers; fields left out keep the value of the built-in
// rule of Like (default: no rule).
type ruleSpec struct {
	Like                 string            `json:"like"`
	Reasoning            *bool             `json:"reasoning"`
	Drop                 []string          `json:"drop"`
	ReasoningEffort      map[string]string `json:"reasoning_effort"`
	ReasoningMaxTokens   *int              `json:"reasoning_max_tokens"`
	NoneDisablesThinking *bool             `json:"none_disables_thinking"`
}

// ruleParams are the parameters a rule can drop.
var ruleParams = []string{pTemperature, pTopP, pPresencePenalty, pFrequencyPenalty, pStop}

// hearthEfforts are the reasoning_effort values a rule maps.
var hearthEfforts = []string{"none", "low", "medium", "high"}

var (
	providerName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)
	// patternChars are what a pattern may hold: model id characters, '*'
	// and "[a-b]" ranges.
	patternChars = regexp.MustCompile(`^([A-Za-z0-9._:/@+-]|\*|\[[A-Za-z0-9]-[A-Za-z0-9]\])+$`)
)

// LoadModelsFile reads and validates an operator's models file. Every
// error names the file, the entry (models[i] and its id) and the field.
func LoadModelsFile(path string) (*Models, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := parseModels(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m.file = path
	return m, nil
}

// parseModels parses and validates the content of a models file.
func parseModels(raw []byte) (*Models, error) {
	js, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return nil, err
	}
	var f modelsFile
	if err := strictJSON(js, &f); err != nil {
		return nil, err
	}
	if f.Models == nil {
		return nil, fmt.Errorf("models: the file declares no models (a top-level \"models\" list)")
	}
	return ParseModelEntries(f.Models)
}

// ParseModelEntries validates model entries in the shape of the models
// file's "models" list (the "models" of a `hearth apply` file). Every
// error names the entry (models[i] and its id) and the field.
func ParseModelEntries(entries []json.RawMessage) (*Models, error) {
	m := &Models{}
	seen := map[string]int{}
	for i, rawEntry := range entries {
		var fe modelsFileEntry
		if err := strictJSON(rawEntry, &fe); err != nil {
			return nil, fmt.Errorf("models[%d]: %w", i, err)
		}
		e, err := fe.validate(i)
		if err != nil {
			return nil, fmt.Errorf("models[%d] (%s:%s): %w", i, fe.Provider, fe.Model+fe.Pattern, err)
		}
		if j, dup := seen[e.name()]; dup {
			return nil, fmt.Errorf("models[%d] (%s): the same %s as models[%d]", i, e.name(), kindOf(e), j)
		}
		seen[e.name()] = i
		m.entries = append(m.entries, e)
	}
	return m, nil
}

func kindOf(e modelEntry) string {
	if e.model != "" {
		return "model"
	}
	return "pattern"
}

// strictJSON decodes b into v, refusing unknown fields.
func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// validate checks one entry and converts it.
func (fe *modelsFileEntry) validate(i int) (modelEntry, error) {
	e := modelEntry{index: i, provider: fe.Provider, model: fe.Model, pattern: fe.Pattern,
		prompt: fe.Prompt, completion: fe.Completion, tiers: fe.Tiers, image: fe.Image, sizes: fe.Sizes,
		qualities: fe.Qualities, contextWindow: fe.ContextWindow, retired: fe.Retired, cache: fe.Cache, estimated: fe.Estimated}
	switch {
	case fe.Provider == "":
		return e, fmt.Errorf("provider: required")
	case !providerName.MatchString(fe.Provider):
		return e, fmt.Errorf("provider: %q is not a provider name (lower-case letters, digits, - and _)", fe.Provider)
	case (fe.Model == "") == (fe.Pattern == ""):
		return e, fmt.Errorf("model, pattern: exactly one is required (an exact model id, or a pattern where * is any run of characters)")
	case fe.Model != "" && strings.ContainsAny(fe.Model, "*[] \t"):
		return e, fmt.Errorf("model: %q is not a model id (use pattern for a family of models)", fe.Model)
	case fe.Pattern != "" && !patternChars.MatchString(fe.Pattern):
		return e, fmt.Errorf("pattern: %q is not a pattern (model id characters, * for any run of characters, [a-b] for one character of a range)", fe.Pattern)
	case (fe.Prompt == nil) != (fe.Completion == nil):
		return e, fmt.Errorf("prompt, completion: give both prices or neither")
	case fe.Prompt != nil && *fe.Prompt < 0:
		return e, fmt.Errorf("prompt: must not be negative")
	case fe.Completion != nil && *fe.Completion < 0:
		return e, fmt.Errorf("completion: must not be negative")
	case fe.Tiers != nil && fe.Prompt == nil:
		return e, fmt.Errorf("tiers: need the base prompt and completion prices")
	case fe.Image != nil && (fe.Prompt != nil || fe.Tiers != nil):
		return e, fmt.Errorf("image: an entry has text prices (prompt, completion) or an image price, not both")
	case fe.Image != nil && *fe.Image < 0:
		return e, fmt.Errorf("image: must not be negative")
	case fe.Image == nil && (fe.Sizes != nil || fe.Qualities != nil):
		return e, fmt.Errorf("sizes, qualities: only for an image model (with an image price)")
	case fe.Image != nil && fe.Cache != nil:
		return e, fmt.Errorf("cache: only for a text model (an image model has no prompt cache)")
	case fe.ContextWindow != nil && *fe.ContextWindow <= 0:
		return e, fmt.Errorf("context_window: must be a positive number of tokens")
	case fe.Retired != nil && fe.Retired.Replacement == fe.Model && fe.Model != "":
		return e, fmt.Errorf("retired.replacement: names the retired model itself")
	}
	if err := checkTiers(fe.Tiers); err != nil {
		return e, err
	}
	if err := checkRetirement(fe.Retired); err != nil {
		return e, err
	}
	if err := fe.Cache.check(); err != nil {
		return e, err
	}
	if fe.Rules != nil {
		if err := parseRule(&e, fe.Rules); err != nil {
			return e, err
		}
	}
	return e, nil
}

// rule checks a rule spec and converts it to a modelRule.
func (rs *ruleSpec) rule(provider, pattern string) (*modelRule, error) {
	var r modelRule
	if rs.Like != "" {
		base := ruleFor(provider, rs.Like)
		if base == nil {
			return nil, fmt.Errorf("rules.like: no built-in rule of %s matches %q", provider, rs.Like)
		}
		r = *base
	}
	if err := checkDrop(rs.Drop); err != nil {
		return nil, err
	}
	for k, v := range rs.ReasoningEffort {
		if !contains(hearthEfforts, k) {
			return nil, fmt.Errorf("rules.reasoning_effort: %q is not a Hearth effort (%s)", k, strings.Join(hearthEfforts, ", "))
		}
		if v == "" {
			return nil, fmt.Errorf("rules.reasoning_effort.%s: empty (leave the effort out to send none)", k)
		}
	}
	if rs.ReasoningMaxTokens != nil && *rs.ReasoningMaxTokens < 0 {
		return nil, fmt.Errorf("rules.reasoning_max_tokens: must not be negative")
	}
	r.pattern, r.source = pattern, "operator"
	if rs.Reasoning != nil {
		r.reasoning = *rs.Reasoning
	}
	if rs.Drop != nil {
		r.drop = rs.Drop
	}
	if rs.ReasoningEffort != nil {
		r.effort = rs.ReasoningEffort
	}
	if rs.ReasoningMaxTokens != nil {
		r.reasoningMaxTokens = *rs.ReasoningMaxTokens
	}
	if rs.NoneDisablesThinking != nil {
		r.noneDisablesThinking = *rs.NoneDisablesThinking
	}
	return &r, nil
}

// CheckProviders reports the first entry whose provider is not one of
// known (the registry's providers, deployments' aliases included).
func (m *Models) CheckProviders(known func(string) bool) error {
	if m == nil {
		return nil
	}
	for _, e := range m.entries {
		if !known(e.provider) {
			err := fmt.Errorf("models[%d] (%s): provider: %q is not a built-in or configured provider, nor the alias of a deployment (configured or stored)", e.index, e.name(), e.provider)
			if m.file != "" {
				err = fmt.Errorf("%s: %w", m.file, err)
			}
			return err
		}
	}
	return nil
}

// keepKnown returns m without the entries whose provider is not one of
// known, and an error naming each entry left out.
func (m *Models) keepKnown(known func(string) bool) (*Models, error) {
	if m == nil {
		return nil, nil
	}
	var errs []error
	kept := &Models{file: m.file}
	for _, e := range m.entries {
		if known(e.provider) {
			kept.entries = append(kept.entries, e)
			continue
		}
		errs = append(errs, fmt.Errorf("models[%d] (%s) left out: provider %q is not a built-in or configured provider, nor the alias of a deployment (configured or stored)", e.index, e.name(), e.provider))
	}
	if len(errs) == 0 {
		return m, nil
	}
	return kept, errors.Join(errs...)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
