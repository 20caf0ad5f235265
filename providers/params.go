package providers

import "strings"

// This file is the per-model parameter rules of the OpenAI-wire hosts:
// which request parameters a family of models rejects, which
// reasoning_effort values it takes, and how large a default output budget
// its hidden reasoning needs. The rules are data; buildOpenAIRequest
// applies them. docs/providers.md#parameter-rules-per-provider is the
// user-facing copy of this table.

// langbaseDefaultMaxTokens is the max_tokens default of pipes and agent
// runs (docs/pipes-and-threads.md, docs/agent-and-mcp.md). On a model whose hidden reasoning counts
// toward the limit it leaves nothing for the answer, so a rule with
// reasoningMaxTokens replaces exactly this value; any other value the
// caller chose is sent unchanged.
const langbaseDefaultMaxTokens = 1000

// Canonical parameter names a rule can drop (their OpenAI wire names).
const (
	pTemperature      = "temperature"
	pTopP             = "top_p"
	pPresencePenalty  = "presence_penalty"
	pFrequencyPenalty = "frequency_penalty"
	pStop             = "stop"
)

// samplingParams are what reasoning models of OpenAI, Groq and DeepSeek
// do not take.
var samplingParams = []string{pTemperature, pTopP, pPresencePenalty, pFrequencyPenalty}

// modelRule is what the models matching pattern accept.
type modelRule struct {
	// pattern matches model ids; '*' matches any run of characters, so
	// "grok-4*non-reasoning*" and "o3*" are patterns. The first rule of a
	// host that matches wins.
	pattern string
	// reasoning marks models with hidden reasoning.
	reasoning bool
	// drop lists the parameters the models reject.
	drop []string
	// effort maps Hearth's reasoning_effort ("none", "low", "medium",
	// "high") to the value sent; a value missing from the map is not sent,
	// and a nil map means the models take no reasoning_effort at all.
	effort map[string]string
	// reasoningMaxTokens replaces langbaseDefaultMaxTokens (0 keeps it).
	reasoningMaxTokens int
	// toolsNoEffort: with function tools the models take reasoning_effort
	// "none" only, so a request offering tools sends "none" whatever it
	// asked for (or when it asked for nothing).
	toolsNoEffort bool
	// noParallelToolCalls: the models refuse parallel_tool_calls.
	noParallelToolCalls bool
	// noneDisablesThinking sends reasoning_effort "none" as
	// {"thinking":{"type":"disabled"}} (DeepSeek's switch), since the
	// models think by default.
	noneDisablesThinking bool
	// source is the documentation the rule was checked against.
	source string
}

// sameEffort passes every Hearth effort through unchanged.
var sameEffort = map[string]string{"none": "none", "low": "low", "medium": "medium", "high": "high"}

// modelRules are the rules per OpenAI-wire host. Hosts without rules send
// reasoning_effort when they have a reasoningField and drop nothing.
var modelRules = map[string][]modelRule{
	"openai": {
		// gpt-5-chat is the non-reasoning chat model of the gpt-5 family.
		{pattern: "gpt-5-chat*", source: "https://platform.openai.com/docs/models/gpt-5-chat-latest"},
		// GPT-6 (gpt-6-astra, -sol, -luna, gpt-6.1-*) rejects sampling
		// parameters and stop like gpt-5.x, and takes function tools on chat
		// completions only with reasoning_effort "none" ("Function tools
		// with reasoning_effort are not supported for <model> in
		// /v1/chat/completions"), as gpt-5.2 to gpt-5.6 do:
		// https://developers.openai.com/api/docs/guides/deployment-checklist
		{pattern: "gpt-6*", reasoning: true, drop: append(samplingParams, pStop), effort: sameEffort, reasoningMaxTokens: 25000, toolsNoEffort: true,
			source: "https://developers.openai.com/api/docs/guides/deployment-checklist"},
		// gpt-5.1 takes tools at every effort.
		{pattern: "gpt-5.1*", reasoning: true, drop: append(samplingParams, pStop), effort: sameEffort, reasoningMaxTokens: 25000,
			source: "https://platform.openai.com/docs/api-reference/chat/create#chat-create-reasoning_effort"},
		// gpt-5.1 and later take "none" (no reasoning); gpt-5 itself
		// starts at "minimal". Sampling parameters and stop are rejected
		// ("Unsupported parameter: 'stop' is not supported with this
		// model", https://github.com/crewAIInc/crewAI/issues/2738).
		// OpenAI recommends reserving at least 25,000 tokens for reasoning
		// and output: https://platform.openai.com/docs/guides/reasoning
		// gpt-5.2 and gpt-5.4 refuse an explicit effort with tools; gpt-5.5
		// and gpt-5.6 refuse tools unless the effort is "none"
		// (https://community.openai.com/t/gpt-5-6-chat-completion-reasoning-effort-bug-behavior-change/1386454).
		{pattern: "gpt-5.*", reasoning: true, drop: append(samplingParams, pStop), effort: sameEffort, reasoningMaxTokens: 25000, toolsNoEffort: true,
			source: "https://platform.openai.com/docs/api-reference/chat/create#chat-create-reasoning_effort"},
		{pattern: "gpt-5*", reasoning: true, drop: append(samplingParams, pStop), reasoningMaxTokens: 25000,
			effort: map[string]string{"none": "minimal", "low": "low", "medium": "medium", "high": "high"},
			source: "https://platform.openai.com/docs/guides/reasoning"},
		// The o-series takes low, medium and high; "none" is its lowest. It
		// refuses parallel_tool_calls ("Unsupported parameter").
		{pattern: "o[1-9]*", reasoning: true, drop: append(samplingParams, pStop), reasoningMaxTokens: 25000, noParallelToolCalls: true,
			effort: map[string]string{"none": "low", "low": "low", "medium": "medium", "high": "high"},
			source: "https://platform.openai.com/docs/guides/reasoning"},
	},
	"xai": {
		// presencePenalty, frequencyPenalty and stop are rejected by every
		// reasoning model; reasoning_effort only by some of them:
		// https://docs.x.ai/docs/guides/reasoning
		{pattern: "grok-*non-reasoning*", source: "https://docs.x.ai/docs/models"},
		{pattern: "grok-3-mini*", reasoning: true, drop: []string{pPresencePenalty, pFrequencyPenalty, pStop},
			effort: map[string]string{"none": "low", "low": "low", "medium": "high", "high": "high"},
			source: "https://docs.x.ai/docs/guides/reasoning"},
		// grok-4.3 takes none, low, medium and high:
		// https://docs.x.ai/developers/model-capabilities/text/reasoning#effort-levels
		{pattern: "grok-4.3*", reasoning: true, drop: []string{pPresencePenalty, pFrequencyPenalty, pStop}, effort: sameEffort,
			source: "https://docs.x.ai/developers/model-capabilities/text/reasoning"},
		// grok-4.5 and later take low, medium and high; their reasoning
		// cannot be switched off, so "none" is sent as "low":
		// https://docs.x.ai/developers/grok-4-5
		{pattern: "grok-4.[5-9]*", reasoning: true, drop: []string{pPresencePenalty, pFrequencyPenalty, pStop},
			effort: map[string]string{"none": "low", "low": "low", "medium": "medium", "high": "high"},
			source: "https://docs.x.ai/developers/model-capabilities/text/reasoning"},
		// grok-4, grok-4-fast, grok-4-1-fast, grok-4.20 and grok-code
		// reason without an effort dial (grok-4.20-multi-agent's
		// reasoning.effort picks an agent count, not an effort).
		{pattern: "grok-4*", reasoning: true, drop: []string{pPresencePenalty, pFrequencyPenalty, pStop},
			source: "https://docs.x.ai/docs/guides/reasoning"},
		{pattern: "grok-code*", reasoning: true, drop: []string{pPresencePenalty, pFrequencyPenalty, pStop},
			source: "https://docs.x.ai/docs/guides/reasoning"},
		// grok-build, the coding-agent model, reasons without an effort dial.
		{pattern: "grok-build*", reasoning: true, drop: []string{pPresencePenalty, pFrequencyPenalty, pStop},
			source: "https://docs.x.ai/docs/models"},
	},
	"groq": {
		// gpt-oss takes low, medium and high (its Harmony format has no
		// "none"); qwen3 takes "none" and "default":
		// https://console.groq.com/docs/reasoning
		{pattern: "openai/gpt-oss*", reasoning: true, drop: samplingParams,
			effort: map[string]string{"none": "low", "low": "low", "medium": "medium", "high": "high"},
			source: "https://console.groq.com/docs/reasoning"},
		{pattern: "qwen/qwen3*", reasoning: true, drop: samplingParams,
			effort: map[string]string{"none": "none", "low": "default", "medium": "default", "high": "default"},
			source: "https://console.groq.com/docs/reasoning"},
	},
	"deepseek": {
		// Thinking mode (on by default, at effort high) ignores sampling
		// parameters. reasoning_effort takes low, high and max (medium is
		// read as high); "none" is not an effort: thinking is switched off
		// with {"thinking":{"type":"disabled"}}:
		// https://api-docs.deepseek.com/guides/thinking_mode
		// deepseek-chat and deepseek-reasoner are retired; the V4 models
		// replace them.
		{pattern: "deepseek-v4*", reasoning: true, reasoningMaxTokens: 32768, noneDisablesThinking: true,
			effort: map[string]string{"low": "low", "medium": "high", "high": "high"},
			source: "https://api-docs.deepseek.com/guides/thinking_mode"},
		// deepseek-flash (DeepSeek-V4.1-Flash) is the current name of the
		// Flash model, with the same thinking mode:
		// https://api-docs.deepseek.com/quick_start/pricing
		{pattern: "deepseek-flash*", reasoning: true, reasoningMaxTokens: 32768, noneDisablesThinking: true,
			effort: map[string]string{"low": "low", "medium": "high", "high": "high"},
			source: "https://api-docs.deepseek.com/guides/thinking_mode"},
	},
}

// ruleFor returns the first rule of provider matching model, or nil.
func ruleFor(provider, model string) *modelRule {
	rules := modelRules[provider]
	for i := range rules {
		if globMatch(rules[i].pattern, model) {
			return &rules[i]
		}
	}
	return nil
}

// drops reports whether the rule drops parameter p.
func (r *modelRule) drops(p string) bool {
	if r == nil {
		return false
	}
	for _, d := range r.drop {
		if d == p {
			return true
		}
	}
	return false
}

// globMatch matches s against a pattern where '*' is any run of
// characters and "[1-9]" one character of a range; everything else is
// literal.
func globMatch(pattern, s string) bool {
	for pattern != "" {
		switch {
		case pattern[0] == '*':
			rest := pattern[1:]
			for i := 0; i <= len(s); i++ {
				if globMatch(rest, s[i:]) {
					return true
				}
			}
			return false
		case pattern[0] == '[' && len(pattern) >= 5 && pattern[2] == '-' && pattern[4] == ']':
			if s == "" || s[0] < pattern[1] || s[0] > pattern[3] {
				return false
			}
			pattern, s = pattern[5:], s[1:]
		default:
			if s == "" || s[0] != pattern[0] {
				return false
			}
			pattern, s = pattern[1:], s[1:]
		}
	}
	return s == ""
}

// effortFor returns the reasoning_effort to send for a requested effort
// ("" when none is sent); tools reports whether the request offers
// function tools.
func effortFor(h *host, r *modelRule, want string, tools bool) string {
	if tools && r != nil && r.toolsNoEffort {
		want = "none"
	}
	if want == "" || h.reasoningField == "" {
		return ""
	}
	if _, ruled := modelRules[h.name]; !ruled && r == nil {
		return want
	}
	if r == nil || r.effort == nil {
		return ""
	}
	return r.effort[strings.ToLower(want)]
}
