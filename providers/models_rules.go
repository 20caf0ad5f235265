package providers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// An operator rule (the "rules" of a models file entry) takes the shape of
// its provider's family: the OpenAI-wire hosts' ruleSpec, antRuleSpec for
// Anthropic, gemRuleSpec for Google and cohRuleSpec for Cohere. Each may
// start from a built-in rule ("like": a model id whose rule Hearth already
// knows) and change single fields.

// antRuleSpec is the data form of an antRule; fields left out keep the
// value of the rule of Like (default: Hearth's rule for Claude models
// newer than its table).
type antRuleSpec struct {
	Like               string `json:"like"`
	Sampling           *bool  `json:"sampling"`
	OneSampler         *bool  `json:"one_sampler"`
	Thinking           string `json:"thinking"`
	Effort             *bool  `json:"effort"`
	Format             *bool  `json:"format"`
	ThinksByDefault    *bool  `json:"thinks_by_default"`
	AlwaysThinks       *bool  `json:"always_thinks"`
	BoundThinking      *bool  `json:"bound_thinking"`
	ReasoningMaxTokens *int   `json:"reasoning_max_tokens"`
}

// gemRuleSpec is the data form of a gemRule; fields left out keep the
// value of the rule of Like (default: Hearth's rule for new gemini-*
// models).
type gemRuleSpec struct {
	Like               string   `json:"like"`
	ThinkingLevels     []string `json:"thinking_levels"`
	ThinkingBudget     *bool    `json:"thinking_budget"`
	MinThinkingBudget  *int     `json:"min_thinking_budget"`
	DefaultTemperature *bool    `json:"default_temperature"`
	Signatures         *bool    `json:"signatures"`
	ReasoningMaxTokens *int     `json:"reasoning_max_tokens"`
}

// cohRuleSpec is what a Cohere rule can say: the parameters the models
// reject. The Cohere adapter sends no reasoning settings, so there is
// nothing else to rule.
type cohRuleSpec struct {
	Drop []string `json:"drop"`
}

// geminiLevels are the thinkingLevel values, lowest first.
var geminiLevels = []string{"minimal", "low", "medium", "high"}

// parseRule checks the "rules" of an entry against its provider's family
// and stores the converted rule on e.
func parseRule(e *modelEntry, raw json.RawMessage) error {
	name := e.model + e.pattern
	switch e.provider {
	case HearthProvider:
		return fmt.Errorf("rules: the offline hearth provider takes every parameter; it has no rules")
	case "anthropic":
		var s antRuleSpec
		if err := decodeRule(raw, &s); err != nil {
			return err
		}
		r, err := s.rule()
		e.ant = r
		return err
	case "google":
		var s gemRuleSpec
		if err := decodeRule(raw, &s); err != nil {
			return err
		}
		r, err := s.rule()
		e.gem = r
		return err
	case "cohere":
		var s cohRuleSpec
		if err := decodeRule(raw, &s); err != nil {
			return err
		}
		if err := checkDrop(s.Drop); err != nil {
			return err
		}
		e.cohDrop = s.Drop
		return nil
	}
	var s ruleSpec
	if err := decodeRule(raw, &s); err != nil {
		return err
	}
	r, err := s.rule(e.provider, name)
	e.rule = r
	return err
}

// decodeRule decodes a rule strictly; an unknown field's error lists the
// fields the family takes.
func decodeRule(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	var fields []string
	t := reflect.TypeOf(v).Elem()
	for i := 0; i < t.NumField(); i++ {
		fields = append(fields, strings.Split(t.Field(i).Tag.Get("json"), ",")[0])
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Errorf("rules: %w", err)
	}
	return fmt.Errorf("rules: %w (this provider's rules take %s)", err, strings.Join(fields, ", "))
}

// checkDrop checks a drop list.
func checkDrop(drop []string) error {
	for j, d := range drop {
		if !contains(ruleParams, d) {
			return fmt.Errorf("rules.drop[%d]: %q is not a parameter a rule can drop (%s)", j, d, strings.Join(ruleParams, ", "))
		}
	}
	return nil
}

// rule checks an Anthropic rule spec and converts it.
func (s *antRuleSpec) rule() (*antRule, error) {
	r := antRules[len(antRules)-1]
	if s.Like != "" {
		r = antRuleFor(s.Like)
	}
	set := func(dst *bool, src *bool) {
		if src != nil {
			*dst = *src
		}
	}
	set(&r.sampling, s.Sampling)
	set(&r.oneSampler, s.OneSampler)
	set(&r.effort, s.Effort)
	set(&r.format, s.Format)
	set(&r.byDefault, s.ThinksByDefault)
	set(&r.always, s.AlwaysThinks)
	set(&r.bound, s.BoundThinking)
	switch s.Thinking {
	case "":
	case "adaptive", "budget":
		r.thinking = s.Thinking
	case "none":
		r.thinking = ""
	default:
		return nil, fmt.Errorf("rules.thinking: %q is not a thinking mode (adaptive, budget or none)", s.Thinking)
	}
	if n := s.ReasoningMaxTokens; n != nil {
		if *n < 0 {
			return nil, fmt.Errorf("rules.reasoning_max_tokens: must not be negative")
		}
		r.thinkMaxTokens = *n
	}
	if (r.byDefault || r.always) && r.thinking == "" {
		return nil, fmt.Errorf("rules.thinking: a model that thinks by default needs a thinking mode (adaptive or budget)")
	}
	r.pattern = "operator"
	return &r, nil
}

// rule checks a Gemini rule spec and converts it.
func (s *gemRuleSpec) rule() (*gemRule, error) {
	r := gemRules[len(gemRules)-1]
	if s.Like != "" {
		r = gemRuleFor(s.Like)
	}
	if s.ThinkingLevels != nil {
		last := -1
		for j, l := range s.ThinkingLevels {
			i := indexOf(geminiLevels, l)
			if i <= last {
				return nil, fmt.Errorf("rules.thinking_levels[%d]: %q is not a level above the one before (%s, lowest first)", j, l, strings.Join(geminiLevels, ", "))
			}
			last = i
		}
		r.levels = s.ThinkingLevels
	}
	if s.ThinkingBudget != nil {
		r.budget = *s.ThinkingBudget
	}
	if r.budget && len(r.levels) > 0 {
		if s.ThinkingLevels == nil {
			r.levels = nil
		} else {
			return nil, fmt.Errorf("rules.thinking_budget, rules.thinking_levels: a model takes a thinking budget or levels, not both")
		}
	}
	if n := s.MinThinkingBudget; n != nil {
		if *n < 0 {
			return nil, fmt.Errorf("rules.min_thinking_budget: must not be negative")
		}
		r.minBudget = *n
	}
	if s.DefaultTemperature != nil {
		r.defaultTemperature = *s.DefaultTemperature
	}
	if s.Signatures != nil {
		r.signatures = *s.Signatures
	}
	if n := s.ReasoningMaxTokens; n != nil {
		if *n < 0 {
			return nil, fmt.Errorf("rules.reasoning_max_tokens: must not be negative")
		}
		r.reasoningMaxTokens = *n
	}
	r.pattern = "operator"
	return &r, nil
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// antRule returns the operator's rule of a Claude model, or nil.
func (m *Models) antRule(model string) *antRule {
	for _, e := range m.matching("anthropic", model) {
		if e.ant != nil {
			return e.ant
		}
	}
	return nil
}

// gemRule returns the operator's rule of a Gemini model (models/ prefix
// allowed), or nil.
func (m *Models) gemRule(model string) *gemRule {
	model = strings.TrimPrefix(model, "models/")
	for _, e := range m.matching("google", model) {
		if e.gem != nil {
			return e.gem
		}
	}
	return nil
}

// cohDrop returns the parameters the operator's rule of a Cohere model
// drops, or nil.
func (m *Models) cohDrop(model string) []string {
	for _, e := range m.matching("cohere", model) {
		if e.cohDrop != nil {
			return e.cohDrop
		}
	}
	return nil
}
