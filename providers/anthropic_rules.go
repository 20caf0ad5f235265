package providers

import (
	"encoding/json"
	"path"
	"strings"

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
	// byDefault: the model thinks when the request says nothing (Claude
	// 5 and later); thinking: {type: "disabled"} turns it off.
	byDefault bool
	// always: thinking cannot be turned off (a disabled thinking is a 400)
	// and forced tool use is refused, so reasoning_effort "none" is the
	// lowest effort and a forced tool_choice becomes auto plus an
	// instruction in the system prompt.
	always bool
	// bound: thinking blocks may only go back to the model that produced
	// them (blocks Hearth did not record the model of are not sent).
	bound bool
	// thinkMaxTokens replaces langbaseDefaultMaxTokens while the model
	// thinks: max_tokens caps thinking and answer together.
	thinkMaxTokens int
}

// claudeThinkMaxTokens is the max_tokens of a thinking Claude 5.x model
// asked for the pipe default: room for adaptive thinking at the default
// effort and the answer (the models' output limit is 64k to 128k).
const claudeThinkMaxTokens = 32000

// antRules are checked in order; the first match wins. Models newer than
// this table take the last rule: new Claude models follow the newest API
// (Opus 5.5), which rejects sampling parameters, always thinks and ties
// thinking to its model. Claude 5 and later sources:
//   - thinking on by default, disabled only at effort high or below:
//     https://platform.claude.com/docs/en/models/opus-5/migration-guide
//   - Opus 5.5 and Fable 5.1: thinking cannot be disabled, forced tool use
//     is a 400, thinking blocks are tied to the model and the conversation:
//     https://platform.claude.com/docs/en/models/opus-5-5/whats-new-opus-5-5
//   - Fable 5 and Mythos 5 take adaptive thinking only
//     (https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-adaptive-thinking.html)
var antRules = []antRule{
	{pattern: "claude-opus-5-[5-9]*", thinking: "adaptive", effort: true, format: true, byDefault: true, always: true, bound: true, thinkMaxTokens: claudeThinkMaxTokens},
	{pattern: "claude-sonnet-5-[5-9]*", thinking: "adaptive", effort: true, format: true, byDefault: true, always: true, bound: true, thinkMaxTokens: claudeThinkMaxTokens},
	{pattern: "claude-haiku-5-[5-9]*", thinking: "adaptive", effort: true, format: true, byDefault: true, always: true, bound: true, thinkMaxTokens: claudeThinkMaxTokens},
	{pattern: "claude-mythos-5-[5-9]*", thinking: "adaptive", effort: true, format: true, byDefault: true, always: true, bound: true, thinkMaxTokens: claudeThinkMaxTokens},
	{pattern: "claude-fable-5-[1-9]*", thinking: "adaptive", effort: true, format: true, byDefault: true, always: true, bound: true, thinkMaxTokens: claudeThinkMaxTokens},
	{pattern: "claude-fable-*", thinking: "adaptive", effort: true, format: true, byDefault: true, always: true, thinkMaxTokens: claudeThinkMaxTokens},
	{pattern: "claude-mythos-5*", thinking: "adaptive", effort: true, format: true, byDefault: true, always: true, thinkMaxTokens: claudeThinkMaxTokens},
	{pattern: "claude-opus-5*", thinking: "adaptive", effort: true, format: true, byDefault: true, thinkMaxTokens: claudeThinkMaxTokens},
	{pattern: "claude-sonnet-5*", thinking: "adaptive", effort: true, format: true, byDefault: true, thinkMaxTokens: claudeThinkMaxTokens},
	{pattern: "claude-haiku-5*", thinking: "adaptive", effort: true, format: true, byDefault: true, thinkMaxTokens: claudeThinkMaxTokens},
	{pattern: "claude-opus-4-[7-9]*", thinking: "adaptive", effort: true, format: true},
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
	{pattern: "*", thinking: "adaptive", effort: true, format: true, byDefault: true, always: true, bound: true, thinkMaxTokens: claudeThinkMaxTokens},
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
// sent them, the model that produced them, and the turn's layout. Tool use
// with thinking requires the blocks back, unmodified
// (https://platform.claude.com/docs/en/build-with-claude/extended-thinking#preserving-thinking-blocks);
// models that tie thinking to their model accept them only from
// themselves, in their original place among the turn's blocks.
type antExtra struct {
	Thinking []json.RawMessage `json:"thinking"`
	// Model is the model id the blocks were produced by ("" in threads
	// stored before Hearth recorded it).
	Model string `json:"model,omitempty"`
	// Layout lists the turn's blocks in order: "thinking" (the next block
	// of Thinking), "text", or "tool_use:<id>".
	Layout []string `json:"layout,omitempty"`
}

// antLayoutOf is the layout of an answer's content blocks, or nil when
// the answer had no thinking.
func antLayoutOf(types []string, ids []string) []string {
	var out []string
	thought := false
	for i, t := range types {
		switch t {
		case "thinking", "redacted_thinking":
			out = append(out, "thinking")
			thought = true
		case "text":
			if len(out) == 0 || out[len(out)-1] != "text" {
				out = append(out, "text")
			}
		case "tool_use":
			out = append(out, "tool_use:"+ids[i])
		}
	}
	if !thought {
		return nil
	}
	return out
}

// antTurnThinking returns the stored thinking of an assistant turn's tool
// calls (kept on the first call that has them).
func antTurnThinking(calls []engine.ToolCall) (antExtra, bool) {
	for _, tc := range calls {
		var x antExtra
		if extraGet(tc.ExtraContent, "anthropic", &x) && len(x.Thinking) > 0 {
			return x, true
		}
	}
	return antExtra{}, false
}

// antAssistantBlocks is the content of an assistant turn sent to model:
// its thinking blocks only when model produced them (or, for blocks of
// unknown origin, when the model does not tie thinking to its model), in
// their recorded place among the text and tool_use blocks.
func antAssistantBlocks(m engine.Message, model string, rule antRule) []antBlock {
	text := m.Content.String()
	uses := make([]antBlock, len(m.ToolCalls))
	for i, tc := range m.ToolCalls {
		uses[i] = antBlock{Type: "tool_use", ID: tc.ID, Name: tc.Function.Name, Input: jsonObjectOr(tc.Function.Arguments)}
	}
	x, ok := antTurnThinking(m.ToolCalls)
	foreign := (x.Model != "" && x.Model != model) || (x.Model == "" && rule.bound)
	if ok && foreign {
		ok = false
	}
	var out []antBlock
	if !ok {
		if text != "" {
			out = append(out, antBlock{Type: "text", Text: text})
		}
		return append(out, uses...)
	}
	placed := make([]bool, len(uses))
	textPlaced, next := false, 0
	layout := x.Layout
	if layout == nil {
		layout = make([]string, len(x.Thinking))
		for i := range layout {
			layout[i] = "thinking"
		}
	}
	for _, slot := range layout {
		switch {
		case slot == "thinking" && next < len(x.Thinking):
			out = append(out, antBlock{raw: x.Thinking[next]})
			next++
		case slot == "text" && !textPlaced:
			if text != "" {
				out = append(out, antBlock{Type: "text", Text: text})
			}
			textPlaced = true
		case strings.HasPrefix(slot, "tool_use:"):
			for i := range uses {
				if !placed[i] && uses[i].ID == slot[len("tool_use:"):] {
					out = append(out, uses[i])
					placed[i] = true
					break
				}
			}
		}
	}
	for ; next < len(x.Thinking); next++ {
		out = append(out, antBlock{raw: x.Thinking[next]})
	}
	if !textPlaced && text != "" {
		out = append(out, antBlock{Type: "text", Text: text})
	}
	for i := range uses {
		if !placed[i] {
			out = append(out, uses[i])
		}
	}
	return out
}
