package providers

import "encoding/json"

// Custom model parameters (ChatRequest.Extra) are merged into the upstream
// body as given, except the few whose name or place differs between
// providers: "seed", which OpenAI and most OpenAI-wire hosts take at the
// top level, is Mistral's "random_seed", Gemini's generationConfig.seed,
// and unknown to Anthropic, whose API refuses any extra input.

// seedParam is the custom model parameter name of the sampling seed.
const seedParam = "seed"

// extraSeedRenames maps the seed to its wire name on the OpenAI-wire hosts
// that spell it differently (Mistral: "random_seed",
// https://docs.mistral.ai/api/#tag/chat/operation/chat_completion_v1_chat_completions_post);
// "" drops it where the host has none and refuses unknown fields
// (DeepSeek, https://api-docs.deepseek.com/api/create-chat-completion).
var extraSeedRenames = map[string]string{"mistral": "random_seed", "deepseek": ""}

// extraWithout returns extra without key, copied only when key is there.
func extraWithout(extra map[string]json.RawMessage, key string) map[string]json.RawMessage {
	if _, ok := extra[key]; !ok {
		return extra
	}
	out := make(map[string]json.RawMessage, len(extra)-1)
	for k, v := range extra {
		if k != key {
			out[k] = v
		}
	}
	return out
}

// hostExtra returns the custom model parameters for an OpenAI-wire host:
// the seed renamed (or dropped) where the host spells it differently (a
// caller's own spelling wins), and add merged in unless the caller set
// the same key.
func hostExtra(h *host, extra map[string]json.RawMessage, add map[string]json.RawMessage) map[string]json.RawMessage {
	name, rename := extraSeedRenames[h.name]
	seed, hasSeed := extra[seedParam]
	if (!rename || !hasSeed) && len(add) == 0 {
		return extra
	}
	out := make(map[string]json.RawMessage, len(extra)+len(add))
	for k, v := range add {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	if rename && hasSeed {
		delete(out, seedParam)
		if _, own := extra[name]; !own && name != "" {
			out[name] = seed
		}
	}
	return out
}

// anthropicExtra is extra without the seed: the Messages API has no seed
// and answers 400 "Extra inputs are not permitted" to one.
func anthropicExtra(extra map[string]json.RawMessage) map[string]json.RawMessage {
	return extraWithout(extra, seedParam)
}

// geminiSeed takes the seed out of extra for generationConfig.seed
// (https://ai.google.dev/api/generate-content#generationconfig); a
// top-level "seed" is an unknown name to Gemini. A seed that is not an
// integer stays where it was, for Gemini to refuse with its own message.
func geminiSeed(extra map[string]json.RawMessage) (*int64, map[string]json.RawMessage) {
	raw, ok := extra[seedParam]
	if !ok {
		return nil, extra
	}
	var n int64
	if json.Unmarshal(raw, &n) != nil {
		return nil, extra
	}
	return &n, extraWithout(extra, seedParam)
}
