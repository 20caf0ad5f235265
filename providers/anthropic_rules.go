package providers

import (
	"encoding/json"
	"path"

	"github.com/hearth-dev/hearth/engine"
)

// antRule is what Hearth knows about a family of Claude models: which
// sampling parameters they take, how they think, and whether they have
// native structured output. Rules are data; buildAnthropicRequest applies
// them. Sources (Anthropic's documentation):
//   - sampling removed on Opus 4.7 and later ("setting temperature, top_p
//     or top_k to any non-default value returns a 400"):
//     https://platform.claude.com/docs/en/about-claude/models/migration-guide
//   - temperature and top_p together rejected from the 4.5 generation on
//     ("temperature and top_p cannot both be specified for this model")
//   - adaptive thinking (4.6 and later; the only mode from 4.7 on, where
//     budget_tokens is a 400):
//     https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking
//   - output_config.effort (Opus 4.5, 4.6 models and later):
//     https://platform.claude.com/docs/en/build-with-claude/effort
//   - output_config.format (4.5 models and later):
//     https://platform.claude.com/docs/en/build-with-claude/structured-outputs
type antRule struct {
	// pattern is a path.Match glob on the model id.
	pattern string
	// sampling: the model takes temperature/top_p; false drops both.
	sampling bool
	// oneSampler: temperature and top_p may not be sent together
	// (temperature wins).
	oneSampler bool
	// thinking is "budget" (thinking.type enabled + budget_tokens),
	// "adaptive" (thinking.type adaptive, depth set by effort) or "".
	thinking string
	// effort: the model takes output_config.effort.
	effort bool
	// format: the model takes output_config.format (native JSON schema
	// output); otherwise json_schema is emulated with a forced tool.
	format bool
}

// antRules are checked in order; the first match wins. Models newer than
// this table (Claude 5, Mythos, Fable, Opus 4.8, ...) take the last rule:
// new Claude models follow the current API, which rejects sampling
// parameters and thinks adaptively.
var antRules = []antRule{
	{pattern: "claude-3-7-sonnet*", sampling: true, thinking: "budget"},
	{pattern: "claude-3*", sampling: true},
	{pattern: "claude-opus-4-6*", sampling: true, oneSampler: true, thinking: "adaptive", effort: true, format: true},
	{pattern: "claude-sonnet-4-6*", sampling: true, oneSampler: true, thinking: "adaptive", effort: true, format: true},
	{pattern: "claude-opus-4-5*", sampling: true, oneSampler: true, thinking: "budget", effort: true, format: true},
	{pattern: "claude-sonnet-4-5*", sampling: true, oneSampler: true, thinking: "budget", format: true},
	{pattern: "claude-haiku-4-5*", sampling: true, oneSampler: true, thinking: "budget", format: true},
	{pattern: "claude-opus-4-1*", sampling: true, oneSampler: true, thinking: "budget"},
	{pattern: "claude-opus-4-0*", sampling: true, thinking: "budget"},
	{pattern: "claude-opus-4-2025*", sampling: true, thinking: "budget"},
	{pattern: "claude-sonnet-4-0*", sampling: true, thinking: "budget"},
	{pattern: "claude-sonnet-4-2025*", sampling: true, thinking: "budget"},
	{pattern: "*", thinking: "adaptive", effort: true, format: true},
}

func antRuleFor(model string) antRule {
	for _, r := range antRules {
		if ok, _ := path.Match(r.pattern, model); ok {
			return r
		}
	}
	return antRules[len(antRules)-1]
}

// antBudgets are the budget_tokens of each reasoning_effort on models
// with budget thinking (the minimum budget is 1024).
var antBudgets = map[string]int{"low": 1024, "medium": 8192, "high": 24576}

// antExtra is the "anthropic" entry of a tool call's extra_content: the
// thinking and redacted_thinking blocks of the assistant turn, as the API
// sent them. Tool use with thinking requires them back, unmodified, at the
// start of that assistant turn
// (https://platform.claude.com/docs/en/build-with-claude/extended-thinking#preserving-thinking-blocks).
type antExtra struct {
	Thinking []json.RawMessage `json:"thinking"`
}

// antEchoedThinking returns the stored thinking blocks of an assistant
// turn's tool calls (kept on the first call that has them).
func antEchoedThinking(calls []engine.ToolCall) []antBlock {
	for _, tc := range calls {
		var x antExtra
		if extraGet(tc.ExtraContent, "anthropic", &x) && len(x.Thinking) > 0 {
			out := make([]antBlock, 0, len(x.Thinking))
			for _, raw := range x.Thinking {
				out = append(out, antBlock{raw: raw})
			}
			return out
		}
	}
	return nil
}
