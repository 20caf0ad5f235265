package providers

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// With thinking on, the Messages API wants the assistant turn whose tool
// calls the request answers to start with that model's thinking block
// ("When thinking is enabled, a final assistant message must start with a
// thinking block",
// https://platform.claude.com/docs/en/build-with-claude/extended-thinking#preserving-thinking-blocks).
// A thread that moved to Claude mid tool loop has no such block when the
// calls came from another provider (or from a Claude turn that recorded no
// thinking). Such a request runs without
// thinking when the model can turn it off; a model that always thinks gets
// that last tool exchange as text instead of tool_use and tool_result
// blocks, which it takes without thinking blocks.

// antForeignToolTurn returns the index of the assistant turn whose tool
// calls the last user turn answers when it does not start with thinking
// and no Claude model thought when making it (its thinking, recorded with
// the model that produced it, rides on the calls), or -1. A turn of
// another Claude model keeps its tool blocks.
func antForeignToolTurn(msgs []antMessage, history []engine.Message) int {
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role == "assistant" {
			if _, claude := antTurnThinking(history[i].ToolCalls); claude {
				return -1
			}
			break
		}
	}
	n := len(msgs)
	if n < 2 || msgs[n-1].Role != "user" || msgs[n-2].Role != "assistant" {
		return -1
	}
	answers := false
	for _, b := range msgs[n-1].Content {
		answers = answers || b.Type == "tool_result"
	}
	turn := msgs[n-2].Content
	if !answers || len(turn) == 0 || turn[0].raw != nil {
		return -1
	}
	return n - 2
}

// antToolTurnAsText rewrites the assistant turn at i and the user turn
// after it so that their tool_use and tool_result blocks become text
// saying which tool was called with what, and what it returned.
func antToolTurnAsText(msgs []antMessage, i int) {
	names := map[string]string{}
	turn := make([]antBlock, 0, len(msgs[i].Content))
	for _, b := range msgs[i].Content {
		if b.Type == "tool_use" {
			names[b.ID] = b.Name
			b = antBlock{Type: "text", Text: fmt.Sprintf("(I called the tool `%s` with %s.)", b.Name, b.Input)}
		}
		turn = append(turn, b)
	}
	msgs[i].Content = turn
	results := make([]antBlock, 0, len(msgs[i+1].Content))
	for _, b := range msgs[i+1].Content {
		if b.Type == "tool_result" {
			b = antBlock{Type: "text", Text: fmt.Sprintf("Result of the tool `%s`: %s", names[b.ToolUseID], resultText(b.Content))}
		}
		results = append(results, b)
	}
	msgs[i+1].Content = results
}

// resultText is a tool_result's content as text (Hearth sends a JSON
// string).
func resultText(raw []byte) string {
	s := strings.TrimSpace(string(raw))
	if len(s) >= 2 && s[0] == '"' {
		var out string
		if err := json.Unmarshal(raw, &out); err == nil {
			return out
		}
	}
	return s
}
