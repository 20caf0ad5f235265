package providers

import "path"

// gemRule is what Hearth knows about a family of Gemini models: how
// reasoning_effort is expressed and which parameters are left at the
// model's default. Rules are data; buildGeminiRequest applies them.
type gemRule struct {
	// pattern is a path.Match glob on the model id.
	pattern string
	// levels are the thinkingLevel values the model accepts, lowest
	// first; set for Gemini 3 and later, which take a level instead of a
	// budget (https://ai.google.dev/gemini-api/docs/thinking#thinking-levels).
	levels []string
	// budget is true for Gemini 2.5, which takes a thinkingBudget in
	// tokens (https://ai.google.dev/gemini-api/docs/thinking#set-budget).
	budget bool
	// minBudget is the smallest budget when thinking cannot be turned off
	// (2.5 Pro: 128); 0 means a budget of 0 turns thinking off.
	minBudget int
	// defaultTemperature leaves temperature unsent. Google: "For Gemini 3,
	// we strongly recommend keeping the temperature parameter at its
	// default value of 1.0 ... setting it below 1.0 may lead to unexpected
	// behavior, such as looping or degraded performance"
	// (https://ai.google.dev/gemini-api/docs/gemini-3#temperature). Pipes
	// always carry a temperature (0.7 by default) and the adapter cannot
	// tell a chosen value from the default, so none is sent.
	defaultTemperature bool
	// signatures: the model requires the thoughtSignature of its function
	// calls back on the next step of the turn
	// (https://ai.google.dev/gemini-api/docs/thought-signatures).
	signatures bool
	// reasoningMaxTokens replaces the pipe default max_tokens (1000):
	// thinking tokens count toward maxOutputTokens, so on a model that
	// thinks by default the default leaves an empty or cut answer
	// (https://ai.google.dev/gemini-api/docs/thinking#pricing).
	reasoningMaxTokens int
}

// gemThinkingMaxTokens is the output budget of thinking models when the
// caller left max_tokens at the pipe default: half of the 65,536 output
// tokens Gemini 2.5 and 3 allow, room for high-level thinking and an
// answer.
const gemThinkingMaxTokens = 32768

// gemRules are checked in order; the first match wins. Unknown gemini-*
// ids take the newest family's rules: new models follow the current API.
var gemRules = []gemRule{
	{pattern: "gemini-1*"},
	{pattern: "gemini-2.0*"},
	{pattern: "gemini-2.5-pro*", budget: true, minBudget: 128, reasoningMaxTokens: gemThinkingMaxTokens},
	{pattern: "gemini-2.5*", budget: true, reasoningMaxTokens: gemThinkingMaxTokens},
	{pattern: "gemini-3-pro*", levels: []string{"low", "high"}, defaultTemperature: true, signatures: true, reasoningMaxTokens: gemThinkingMaxTokens},
	{pattern: "gemini-*-pro*", levels: []string{"low", "medium", "high"}, defaultTemperature: true, signatures: true, reasoningMaxTokens: gemThinkingMaxTokens},
	{pattern: "gemini-*", levels: []string{"minimal", "low", "medium", "high"}, defaultTemperature: true, signatures: true, reasoningMaxTokens: gemThinkingMaxTokens},
}

// gemRuleFor returns the rule of model (models/ prefix allowed); the zero
// rule (send everything, no thinking control) for non-Gemini models.
func gemRuleFor(model string) gemRule {
	m := model
	if len(m) > 7 && m[:7] == "models/" {
		m = m[7:]
	}
	for _, r := range gemRules {
		if ok, _ := path.Match(r.pattern, m); ok {
			return r
		}
	}
	return gemRule{}
}

// gemBudgets are the thinkingBudget of each reasoning_effort on Gemini 2.5.
var gemBudgets = map[string]int{"low": 1024, "medium": 8192, "high": 24576}

// thinking maps a reasoning_effort (none, low, medium, high) to the
// model's thinkingConfig; nil when the model has no thinking control.
// "none" is the least thinking the model allows: budget 0 (off) on 2.5
// Flash, the minimum budget on 2.5 Pro, the lowest level on Gemini 3
// (which cannot turn thinking off). A level the model lacks becomes the
// next one up ("medium" on Gemini 3 Pro is "high").
func (r gemRule) thinking(effort string) *gemThinkingConfig {
	switch {
	case effort == "":
		return nil
	case r.budget:
		b, ok := gemBudgets[effort]
		if effort == "none" || effort == "minimal" {
			b, ok = r.minBudget, true
		}
		if !ok {
			return nil
		}
		return &gemThinkingConfig{ThinkingBudget: &b}
	case len(r.levels) > 0:
		if effort == "none" {
			return &gemThinkingConfig{ThinkingLevel: r.levels[0]}
		}
		order := []string{"minimal", "low", "medium", "high"}
		want := -1
		for i, l := range order {
			if l == effort {
				want = i
			}
		}
		if want < 0 {
			return nil
		}
		for _, l := range order[want:] {
			for _, have := range r.levels {
				if have == l {
					return &gemThinkingConfig{ThinkingLevel: l}
				}
			}
		}
		return &gemThinkingConfig{ThinkingLevel: r.levels[len(r.levels)-1]}
	}
	return nil
}

// maxTokens is the maxOutputTokens to send for the caller's max_tokens.
func (r gemRule) maxTokens(n *int) *int {
	if n == nil || r.reasoningMaxTokens == 0 || *n != langbaseDefaultMaxTokens {
		return n
	}
	m := r.reasoningMaxTokens
	return &m
}
