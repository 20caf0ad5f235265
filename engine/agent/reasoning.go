package agent

import (
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// ToolsNeedNoReasoning lists the models whose chat completions accept
// function tools only with reasoning_effort "none". For them an agent run
// that offers tools (the caller's or MCP tools) sends "none", whatever
// effort was asked for: any other value, or none at all, is refused by the
// provider ("Function tools with reasoning_effort are not supported for
// <model> in /v1/chat/completions"). Entries match a provider and a model-id
// prefix; keep this list and the README's "Agent" section in step.
//
// Sources (reported provider errors and client fixes, 2026): gpt-5.2 and
// gpt-5.4 reject an explicit effort with tools; gpt-5.5 and the gpt-5.6
// family (gpt-5.6, -luna, -sol, -terra) reject tools unless the effort is
// explicitly "none". gpt-5.1 accepts tools at every effort and is not listed.
var ToolsNeedNoReasoning = []ModelPrefix{
	{Provider: "openai", Prefix: "gpt-5.2"},
	{Provider: "openai", Prefix: "gpt-5.4"},
	{Provider: "openai", Prefix: "gpt-5.5"},
	{Provider: "openai", Prefix: "gpt-5.6"},
}

// ModelPrefix matches the models of a provider whose id starts with Prefix.
type ModelPrefix struct {
	Provider string
	Prefix   string
}

// Matches reports whether ref is one of the prefix's models.
func (p ModelPrefix) Matches(ref engine.ModelRef) bool {
	return ref.Provider == p.Provider && strings.HasPrefix(strings.ToLower(ref.Model), p.Prefix)
}

// toolsNeedNoReasoning reports whether ref is in ToolsNeedNoReasoning.
func toolsNeedNoReasoning(ref engine.ModelRef) bool {
	for _, p := range ToolsNeedNoReasoning {
		if p.Matches(ref) {
			return true
		}
	}
	return false
}
