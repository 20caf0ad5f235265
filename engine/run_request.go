package engine

// pipeChatRequest is a pipe run's provider request together with the
// values its pointer fields point to (sampling parameters, tool choice,
// parallel tool calls): building the request is one allocation instead of
// one for each of them. The pointers stay valid for as long as the
// request is referenced; nothing shares them with the pipe.
type pipeChatRequest struct {
	req                          ChatRequest
	temperature, topP            float64
	presencePenalty, freqPenalty float64
	maxTokens                    int
	toolChoice                   ToolChoice
	parallel                     bool
}

// newPipeChatRequest returns the request of a pipe run with the pipe's
// sampling parameters, before tools and response format are added, in b
// (nil: a new one; a prepared run keeps one of its own).
func newPipeChatRequest(b *pipeChatRequest, p *Pipe, ref ModelRef, msgs []Message, key string) *pipeChatRequest {
	if b == nil {
		b = new(pipeChatRequest)
	}
	*b = pipeChatRequest{temperature: p.Temperature, topP: p.TopP, presencePenalty: p.PresencePenalty,
		freqPenalty: p.FrequencyPenalty, maxTokens: p.MaxTokens}
	b.req = ChatRequest{Model: ref.Model, Messages: msgs, Temperature: &b.temperature, TopP: &b.topP,
		MaxTokens: &b.maxTokens, PresencePenalty: &b.presencePenalty, FrequencyPenalty: &b.freqPenalty, APIKey: key}
	return b
}
