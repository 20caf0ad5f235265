package providers

import "encoding/json"

// encodeAnthropicRequest returns the body of r with extra merged in: a
// system prompt with cache breakpoints goes as text blocks.
func encodeAnthropicRequest(r *antRequest, extra map[string]json.RawMessage) ([]byte, error) {
	extra = anthropicExtra(extra)
	if len(r.SystemBlocks) > 0 {
		return marshalWithExtra(antRequestWithSystemBlocks{antRequest: r, System: r.SystemBlocks}, extra)
	}
	return marshalWithExtra(r, extra)
}
