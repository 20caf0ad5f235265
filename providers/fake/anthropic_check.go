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

// checkAnthropic returns the invalid_request_error message the real API
// would give, or "".
func (s *Server) checkAnthropic(body []byte) string {
	var r antCheckReq
	if err := json.Unmarshal(body, &r); err != nil {
		return "invalid JSON: " + err.Error()
	}
	switch {
	case r.Model == "":
		return "model: Field required"
	case r.MaxTokens == nil:
		return "max_tokens: Field required"
	case len(r.Messages) == 0:
		return "messages: at least one message is required"
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
	thinking := r.Thinking != nil && r.Thinking.Type != "disabled"
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

// checkAntHistory checks tool_use ids (unique, answered by a following
// tool_result) and, with thinking on, that the assistant turn whose tool
// calls are being answered starts with a thinking block this server signed.
func (s *Server) checkAntHistory(r antCheckReq, thinking bool) string {
	ids := map[string]bool{}
	for i, m := range r.Messages {
		for _, b := range m.blocks() {
			switch b.Type {
			case "tool_use":
				if ids[b.ID] {
					return fmt.Sprintf("messages.%d: `tool_use` ids must be unique", i)
				}
				ids[b.ID] = true
			case "tool_result":
				if !ids[b.ToolUseID] {
					return fmt.Sprintf("messages.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, b.ToolUseID)
				}
			}
		}
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
		hasTool := false
		for _, b := range bs {
			hasTool = hasTool || b.Type == "tool_use"
		}
		if !hasTool {
			return ""
		}
		first := bs[0]
		switch {
		case first.Type == "thinking" && s.wasIssued(first.Signature), first.Type == "redacted_thinking" && s.wasIssued(first.Data):
			return ""
		case first.Type == "thinking" || first.Type == "redacted_thinking":
			return fmt.Sprintf("messages.%d.content.0: Invalid `signature` in `thinking` block", i)
		}
		return fmt.Sprintf("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks).", i, first.Type)
	}
	return ""
}
