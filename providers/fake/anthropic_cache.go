package fake

import (
	"encoding/json"
	"fmt"
)

// antMaxBreakpoints is the most cache_control breakpoints a request may
// carry (https://platform.claude.com/docs/en/build-with-claude/prompt-caching).
const antMaxBreakpoints = 4

// checkAntCache checks the request's cache_control breakpoints as the
// real API does: each is {"type":"ephemeral"} with an optional ttl of 5m
// or 1h, none sits on an empty text block, and there are at most four
// (on tools, system blocks, message blocks and the blocks of tool
// results). It returns the error message, or "".
func checkAntCache(body []byte) string {
	var r struct {
		Tools    []json.RawMessage `json:"tools"`
		System   json.RawMessage   `json:"system"`
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &r) != nil {
		return ""
	}
	n := 0
	var bad string
	visit := func(at string, raw json.RawMessage) {
		var b struct {
			Type         string          `json:"type"`
			Text         *string         `json:"text"`
			CacheControl json.RawMessage `json:"cache_control"`
		}
		if json.Unmarshal(raw, &b) != nil || len(b.CacheControl) == 0 || string(b.CacheControl) == "null" || bad != "" {
			return
		}
		n++
		var cc struct {
			Type string  `json:"type"`
			TTL  *string `json:"ttl"`
		}
		switch {
		case json.Unmarshal(b.CacheControl, &cc) != nil:
			bad = at + ".cache_control: Input should be a valid dictionary"
		case cc.Type != "ephemeral":
			bad = at + ".cache_control.type: Input should be 'ephemeral'"
		case cc.TTL != nil && *cc.TTL != "5m" && *cc.TTL != "1h":
			bad = at + ".cache_control.ttl: Input should be '5m' or '1h'"
		case b.Type == "text" && b.Text != nil && *b.Text == "":
			bad = at + ".text: cache_control cannot be set for empty text blocks"
		}
	}
	blocks := func(at string, raw json.RawMessage) []json.RawMessage {
		var bs []json.RawMessage
		json.Unmarshal(raw, &bs)
		return bs
	}
	for i, t := range r.Tools {
		visit(fmt.Sprintf("tools.%d", i), t)
	}
	for i, b := range blocks("system", r.System) {
		visit(fmt.Sprintf("system.%d", i), b)
	}
	for i, m := range r.Messages {
		for j, b := range blocks("", m.Content) {
			at := fmt.Sprintf("messages.%d.content.%d", i, j)
			visit(at, b)
			var tr struct {
				Content json.RawMessage `json:"content"`
			}
			json.Unmarshal(b, &tr)
			for k, inner := range blocks("", tr.Content) {
				visit(fmt.Sprintf("%s.content.%d", at, k), inner)
			}
		}
	}
	if bad != "" {
		return bad
	}
	if n > antMaxBreakpoints {
		return fmt.Sprintf("A maximum of %d blocks with cache_control may be provided. Found %d.", antMaxBreakpoints, n)
	}
	return ""
}
