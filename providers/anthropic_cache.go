package providers

import (
	"encoding/json"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// Prompt caching (https://platform.claude.com/docs/en/build-with-claude/prompt-caching):
// the canonical request's cache_control breakpoints (on messages, content
// parts and tools) are sent on the blocks they mark. A system prompt with
// a breakpoint goes as text blocks; without one it stays a string.

// antSystemBlocks is a system message as text blocks: one per text part,
// or one for its whole text, the message's breakpoint on the last.
func antSystemBlocks(m engine.Message) []antBlock {
	var out []antBlock
	if m.Content.Parts != nil {
		for _, p := range m.Content.Parts {
			if p.Type == "text" && p.Text != "" {
				out = append(out, antBlock{Type: "text", Text: p.Text, CacheControl: p.CacheControl})
			}
		}
	} else if s := m.Content.Text; s != "" {
		out = append(out, antBlock{Type: "text", Text: s})
	}
	return withCacheControl(out, m.CacheControl)
}

// antSystem is the system prompt of blocks: a string when no block
// carries a breakpoint (the texts joined by blank lines), else the blocks.
func antSystem(blocks []antBlock) (string, []antBlock) {
	texts := make([]string, 0, len(blocks))
	for _, b := range blocks {
		if len(b.CacheControl) > 0 {
			return "", blocks
		}
		texts = append(texts, b.Text)
	}
	return strings.Join(texts, "\n\n"), nil
}

// withCacheControl sets cc on the last block that is not sent raw (thinking
// blocks go back unchanged and take no breakpoint).
func withCacheControl(blocks []antBlock, cc json.RawMessage) []antBlock {
	if len(cc) == 0 {
		return blocks
	}
	for i := len(blocks) - 1; i >= 0; i-- {
		if blocks[i].raw == nil {
			blocks[i].CacheControl = cc
			break
		}
	}
	return blocks
}

// antRequestWithSystemBlocks is an antRequest whose system is blocks.
type antRequestWithSystemBlocks struct {
	*antRequest
	System []antBlock `json:"system"`
}
