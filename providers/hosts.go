package providers

// host describes one OpenAI-wire provider: where it lives, whether it needs
// a key, and which parts of the OpenAI request it does not accept. The
// adapter drops or maps those parts instead of sending them to fail
// upstream. Quirks are data; openai.go applies them.
type host struct {
	name string
	// models are the operator's rules, checked before modelRules (nil:
	// built-in rules only).
	models  *Models
	baseURL string
	needKey bool
	// maxTokensField is the wire name of ChatRequest.MaxTokens.
	maxTokensField string
	// streamUsage sends stream_options.include_usage on streams.
	streamUsage bool
	// noTools drops tools, tool_choice and parallel_tool_calls.
	noTools bool
	// noToolChoice drops tool_choice (the host ignores or rejects it).
	noToolChoice bool
	// toolChoiceRequired is the wire value for tool_choice "required".
	toolChoiceRequired string
	// noParallelToolCalls drops parallel_tool_calls.
	noParallelToolCalls bool
	// noPenalties drops presence_penalty and frequency_penalty.
	noPenalties bool
	// exclusivePenalties keeps only one penalty (presence wins) when both are set.
	exclusivePenalties bool
	// local marks a server on the operator's own machines (Ollama, vLLM,
	// llama.cpp). A penalty equal to a pipe's default (1) is dropped: such
	// servers apply it as a strong additive penalty that degrades small
	// models' answers. /v1/models asks the server which models it has.
	local bool
	// jsonSchema is how response_format json_schema is sent: "" native,
	// "json_object" downgraded to json_object, "drop" not sent.
	jsonSchema string
	// noJSONObject drops response_format json_object.
	noJSONObject bool
	// reasoningField is how reasoning_effort is sent: "" dropped,
	// "reasoning_effort", or "reasoning" (an {"effort": ...} object).
	// Which models take it, and what else they reject, are the per-model
	// rules of params.go.
	reasoningField string
	// echoReasoning keeps the reasoning_content of answers with tool calls
	// (in the first call's extra_content) and sends it back on that
	// assistant turn, as DeepSeek's thinking mode requires.
	echoReasoning bool
	// shortToolIDs maps tool call ids to the nine letters and digits
	// Mistral requires (mistral.go).
	shortToolIDs bool
	// contentChunks reads answers whose content is an array of text and
	// thinking chunks (Mistral's reasoning models; mistral.go).
	contentChunks bool
	// developerRole keeps role "developer"; otherwise it becomes "system".
	developerRole bool
	// embeddings says the host serves /embeddings; maxBatch bounds the
	// inputs of one call and maxBatchTokens (0: no cap) their estimated
	// tokens (see openai_embed.go).
	embeddings     bool
	maxBatch       int
	maxBatchTokens int
	// moderations says the host serves OpenAI /moderations.
	moderations bool
}

// hosts is the table of OpenAI-wire providers.
var hosts = map[string]*host{
	"openai": {name: "openai", baseURL: "https://api.openai.com/v1", needKey: true,
		maxTokensField: "max_completion_tokens", streamUsage: true, reasoningField: "reasoning_effort",
		developerRole: true, embeddings: true, maxBatch: 2048, maxBatchTokens: 300000, moderations: true},
	"groq": {name: "groq", baseURL: "https://api.groq.com/openai/v1", needKey: true,
		maxTokensField: "max_tokens", streamUsage: true, reasoningField: "reasoning_effort"},
	"together": {name: "together", baseURL: "https://api.together.xyz/v1", needKey: true,
		maxTokensField: "max_tokens", embeddings: true, maxBatch: 128},
	"fireworks": {name: "fireworks", baseURL: "https://api.fireworks.ai/inference/v1", needKey: true,
		maxTokensField: "max_tokens", embeddings: true, maxBatch: 128},
	"deepseek": {name: "deepseek", baseURL: "https://api.deepseek.com/v1", needKey: true,
		maxTokensField: "max_tokens", streamUsage: true, jsonSchema: "json_object", reasoningField: "reasoning_effort",
		echoReasoning: true, noParallelToolCalls: true},
	"mistral": {name: "mistral", baseURL: "https://api.mistral.ai/v1", needKey: true,
		maxTokensField: "max_tokens", toolChoiceRequired: "any", embeddings: true, maxBatch: 128, maxBatchTokens: 16384,
		shortToolIDs: true, contentChunks: true},
	"xai": {name: "xai", baseURL: "https://api.x.ai/v1", needKey: true,
		maxTokensField: "max_tokens", streamUsage: true, reasoningField: "reasoning_effort"},
	"perplexity": {name: "perplexity", baseURL: "https://api.perplexity.ai", needKey: true,
		maxTokensField: "max_tokens", noTools: true, exclusivePenalties: true, noJSONObject: true},
	"openrouter": {name: "openrouter", baseURL: "https://openrouter.ai/api/v1", needKey: true,
		maxTokensField: "max_tokens", streamUsage: true, reasoningField: "reasoning", developerRole: true},
	"ollama": {name: "ollama", baseURL: "http://127.0.0.1:11434/v1", needKey: false,
		maxTokensField: "max_tokens", streamUsage: true, noToolChoice: true, embeddings: true, maxBatch: 64, local: true},
	"openai-compatible": {name: "openai-compatible", needKey: false,
		maxTokensField: "max_tokens", embeddings: true, maxBatch: 64, local: true},
}
