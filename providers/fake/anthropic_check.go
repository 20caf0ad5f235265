package fake

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The checks below follow Anthropic's documentation, written on their own
// (not from the adapter's tables) so that a mistake shared by adapter and
// fake cannot hide:
//   - Messages API: https://platform.claude.com/docs/en/api/messages
//   - Opus 4.7 migration (sampling parameters, budget_tokens):
//     https://platform.claude.com/docs/en/about-claude/models/migration-guide
//   - extended/adaptive thinking, thinking with tool use:
//     https://platform.claude.com/docs/en/build-with-claude/extended-thinking
//   - effort: https://platform.claude.com/docs/en/build-with-claude/effort
//   - structured outputs: https://platform.claude.com/docs/en/build-with-claude/structured-outputs

type antCheckBlock struct {
	Type      string `json:"type"`
	Text      string `json:"text"`
	ID        string `json:"id"`
	ToolUseID string `json:"tool_use_id"`
	Signature string `json:"signature"`
	Data      string `json:"data"`
}

type antCheckReq struct {
	Model       string                 `json:"model"`
	MaxTokens   *int                   `json:"max_tokens"`
	Temperature *float64               `json:"temperature"`
	TopP        *float64               `json:"top_p"`
	TopK        *int                   `json:"top_k"`
	Messages    []antCheckMsg          `json:"messages"`
	ToolChoice  *struct{ Type string } `json:"tool_choice"`
	Thinking    *struct {
		Type         string `json:"type"`
		BudgetTokens *int   `json:"budget_tokens"`
	} `json:"thinking"`
	OutputConfig *struct {
		Effort string          `json:"effort"`
		Format json.RawMessage `json:"format"`
	} `json:"output_config"`
}

type antCheckMsg struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

func (m antCheckMsg) blocks() []antCheckBlock {
	var bs []antCheckBlock
	json.Unmarshal(m.Content, &bs)
	return bs
}

// claudeVersion returns the family and version of a Claude model id
// ("claude-opus-4-7" -> "opus", 4.7; "claude-3-5-haiku-latest" -> "", 3.5).
func claudeVersion(model string) (family string, version float64) {
	rest := strings.TrimPrefix(model, "claude-")
	parts := strings.Split(rest, "-")
	var nums []int
	for _, p := range parts {
		var n int
		if _, err := fmt.Sscanf(p, "%d", &n); err == nil && len(p) < 3 && fmt.Sprint(n) == p {
			nums = append(nums, n)
		} else if len(nums) == 0 && family == "" {
			family = p
		} else if len(nums) > 0 {
			break
		}
	}
	switch len(nums) {
	case 0:
		return family, 99 // a name without a number (mythos-preview): newest rules
	case 1:
		return family, float64(nums[0])
	}
	return family, float64(nums[0]) + float64(nums[1])/10
}

// claudeEra says how a model thinks: on by default (Claude 5 and later),
// always on (Opus/Sonnet 5.5, every Fable, Mythos 5: "thinking can't be
// disabled"), and whether its thinking blocks are tied to the model that
// produced them and it refuses forced tool use (Opus and Sonnet 5.5,
// Fable 5.1: https://platform.claude.com/docs/en/models/opus-5-5/whats-new-opus-5-5).
func claudeEra(model string) (byDefault, always, bound bool) {
	family, v := claudeVersion(model)
	byDefault = v >= 5
	always = v >= 5.5 || family == "fable" || (family == "mythos" && v >= 5)
	bound = v >= 5.5 || (family == "fable" && v >= 5.1)
	return byDefault, always, bound
}

// thinks reports whether the request runs with thinking on.
func (r antCheckReq) thinks() bool {
	byDefault, _, _ := claudeEra(r.Model)
	if r.Thinking == nil {
		return byDefault
	}
	return r.Thinking.Type != "disabled"
}

// effort is the request's output_config.effort ("" when unset).
func (r antCheckReq) effort() string {
	if r.OutputConfig == nil {
		return ""
	}
	return r.OutputConfig.Effort
}

// checkAnthropic returns the invalid_request_error message the real API
// would give, or "".
func (s *Server) checkAnthropic(body []byte) string {
	var r antCheckReq
	if err := json.Unmarshal(body, &r); err != nil {
		return "invalid JSON: " + err.Error()
	}
	if p := s.unknownFieldOf(body, antUnknownField); p != "" {
		return p + ": Extra inputs are not permitted"
	}
	switch {
	case r.Model == "":
		return "model: Field required"
	case r.MaxTokens == nil:
		return "max_tokens: Field required"
	case len(r.Messages) == 0:
		return "messages: at least one message is required"
	}
	if msg := checkAntCache(body); msg != "" {
		return msg
	}
	family, v := claudeVersion(r.Model)
	noSampling := v >= 4.7
	if noSampling {
		if r.Temperature != nil && *r.Temperature != 1 {
			return "`temperature` is deprecated for this model."
		}
		if r.TopP != nil || r.TopK != nil {
			return "`top_p` is deprecated for this model."
		}
	}
	if v >= 4.5 || (family == "opus" && v >= 4.1) {
		if r.Temperature != nil && r.TopP != nil {
			return "`temperature` and `top_p` cannot both be specified for this model. Please use only one."
		}
	}
	_, always, bound := claudeEra(r.Model)
	thinking := r.thinks()
	if tc := r.ToolChoice; bound && tc != nil && (tc.Type == "any" || tc.Type == "tool") {
		return "tool_choice: forced tool use is not supported for this model. Use tool_choice \"auto\" or \"none\"."
	}
	if th := r.Thinking; th != nil {
		switch th.Type {
		case "enabled":
			if v >= 4.7 {
				return "thinking.type.enabled is not supported for this model. Use thinking.type.adaptive and output_config.effort to control thinking behavior."
			}
			if v < 3.7 {
				return "thinking: extended thinking is not supported by this model"
			}
			if th.BudgetTokens == nil || *th.BudgetTokens < 1024 {
				return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
			}
			if *th.BudgetTokens >= *r.MaxTokens {
				return "`max_tokens` must be greater than `thinking.budget_tokens`."
			}
		case "adaptive":
			if v < 4.6 {
				return "thinking.type.adaptive is not supported for this model"
			}
		case "disabled":
			switch {
			case always:
				return `"thinking.type.disabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.`
			case v >= 5 && (r.effort() == "xhigh" || r.effort() == "max"):
				return "thinking.type.disabled is only supported at effort high or below for this model."
			}
		default:
			return "thinking.type: Input tag '" + th.Type + "' found using 'type' does not match any of the expected tags: 'enabled', 'disabled', 'adaptive'"
		}
	}
	if thinking {
		if r.Temperature != nil && *r.Temperature != 1 {
			return "`temperature` may only be set to 1 when thinking is enabled or in adaptive mode."
		}
		if r.TopP != nil && (*r.TopP < 0.95 || *r.TopP > 1) {
			return "`top_p` must be unset or between 0.95 and 1 when thinking is enabled."
		}
		if tc := r.ToolChoice; tc != nil && (tc.Type == "any" || tc.Type == "tool") {
			return "Thinking may not be enabled when tool_choice forces tool use."
		}
	}
	if oc := r.OutputConfig; oc != nil {
		if oc.Effort != "" && !(v >= 4.6 || (family == "opus" && v >= 4.5)) {
			return "output_config.effort: this model does not support the effort parameter"
		}
		switch oc.Effort {
		case "", "low", "medium", "high", "max", "xhigh":
		default:
			return "output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'"
		}
		if len(oc.Format) > 0 && v < 4.5 {
			return "output_config.format: structured outputs are not supported for this model"
		}
	}
	return s.checkAntHistory(r, thinking)
}

// thought reports whether the turn started with thinking.
func (t toolTurn) thought() bool {
	return len(t.layout) > 0 && strings.HasPrefix(t.layout[0], "thinking:")
}

// layoutOf is the layout of an assistant turn as sent back.
func layoutOf(bs []antCheckBlock) []string {
	var out []string
	for _, b := range bs {
		switch b.Type {
		case "thinking":
			out = append(out, "thinking:"+b.Signature)
		case "redacted_thinking":
			out = append(out, "thinking:"+b.Data)
		case "text":
			if b.Text != "" {
				out = append(out, "text")
			}
		case "tool_use":
			out = append(out, "tool_use:"+b.ID)
		}
	}
	return out
}

// checkAntHistory checks tool use (unique ids; every tool_use answered by
// a tool_result in the very next user turn, and every tool_result
// answering a tool_use of the turn before) and thinking blocks: each was
// issued by this server; on models that tie thinking to its model, only
// to the model that produced it; and with thinking on, the assistant turn
// whose tool calls are being answered comes back as this model produced
// it (thinking first; on those models, every block in its order).
func (s *Server) checkAntHistory(r antCheckReq, thinking bool) string {
	_, _, bound := claudeEra(r.Model)
	ids := map[string]bool{}
	var open []string
	for i, m := range r.Messages {
		bs := m.blocks()
		answered := map[string]bool{}
		for j, b := range bs {
			switch b.Type {
			case "tool_use":
				if ids[b.ID] {
					return fmt.Sprintf("messages.%d: `tool_use` ids must be unique", i)
				}
				ids[b.ID] = true
			case "tool_result":
				if !contains(open, b.ToolUseID) {
					return fmt.Sprintf("messages.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, b.ToolUseID)
				}
				answered[b.ToolUseID] = true
			case "thinking", "redacted_thinking":
				sig := b.Signature
				if b.Type == "redacted_thinking" {
					sig = b.Data
				}
				by, ok := s.issuer(sig)
				switch {
				case !ok && bound:
					return fmt.Sprintf("messages.%d.content.%d: Invalid `signature` in `thinking` block", i, j)
				case bound && by != r.Model:
					return fmt.Sprintf("messages.%d.content.%d: this thinking block was produced by %s; thinking blocks can only be sent back to the model that produced them (%s)", i, j, by, r.Model)
				}
			}
		}
		for _, id := range open {
			if !answered[id] {
				return fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i-1, id)
			}
		}
		open = nil
		if m.Role == "assistant" {
			for _, b := range bs {
				if b.Type == "tool_use" {
					open = append(open, b.ID)
				}
			}
		}
	}
	if len(open) > 0 {
		return fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", len(r.Messages)-1, open[0])
	}
	if !thinking {
		return ""
	}
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role != "assistant" {
			continue
		}
		bs := m.blocks()
		first := ""
		for _, b := range bs {
			if b.Type == "tool_use" {
				first = b.ID
				break
			}
		}
		if first == "" {
			return ""
		}
		t, known := s.turnOf(first)
		if known && (t.model != r.Model || !t.thought()) {
			// Another model made this turn, or this one without thinking:
			// there is no thinking of this model to send back.
			return ""
		}
		if known && bound && strings.Join(layoutOf(bs), " ") != strings.Join(t.layout, " ") {
			return fmt.Sprintf("messages.%d: the thinking blocks of this turn must be sent back unmodified, in their original order among the turn's other blocks (sent %v, produced %v)", i, layoutOf(bs), t.layout)
		}
		head := bs[0]
		switch {
		case head.Type == "thinking" && s.wasIssued(head.Signature), head.Type == "redacted_thinking" && s.wasIssued(head.Data):
			return ""
		case head.Type == "thinking" || head.Type == "redacted_thinking":
			return fmt.Sprintf("messages.%d.content.0: Invalid `signature` in `thinking` block", i)
		}
		return fmt.Sprintf("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks).", i, head.Type)
	}
	return ""
}
