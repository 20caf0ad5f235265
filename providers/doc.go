// Package providers holds Hearth's adapters to LLM, embedding and
// moderation providers, the registry that implements engine.Providers, the
// /v1/models catalogue, and the offline "hearth" test doubles. Fake
// upstreams for tests and benchmarks live in providers/fake.
//
// # Providers and configuration
//
// A model id is "provider:model_id" (engine.ParseModelID). Built-in
// providers and their default base URLs (version segment included):
//
//	openai             https://api.openai.com/v1              chat, embeddings, moderations
//	anthropic          https://api.anthropic.com/v1           chat (Messages API)
//	google             https://generativelanguage.googleapis.com/v1beta   chat, embeddings
//	cohere             https://api.cohere.com/v2              chat, embeddings
//	groq               https://api.groq.com/openai/v1         chat
//	together           https://api.together.xyz/v1            chat, embeddings
//	fireworks          https://api.fireworks.ai/inference/v1  chat, embeddings
//	deepseek           https://api.deepseek.com/v1            chat
//	mistral            https://api.mistral.ai/v1              chat, embeddings
//	xai                https://api.x.ai/v1                    chat
//	perplexity         https://api.perplexity.ai              chat
//	openrouter         https://openrouter.ai/api/v1           chat
//	ollama             http://127.0.0.1:11434/v1              chat, embeddings (no key needed)
//	openai-compatible  (no default: set its base URL)         chat, embeddings (no key needed)
//	hearth             built in, offline                      TEST DOUBLES (see below)
//
// main.go reads HEARTH_<P>_BASE_URL and HEARTH_<P>_API_KEY for every name
// of KnownProviders (EnvNames gives the exact names; "-" becomes "_", so
// HEARTH_OPENAI_COMPATIBLE_BASE_URL) and passes them in Config.Providers.
// Nothing in this package reads the environment. A Config.Providers entry
// with a name that is not built in (for example "lmstudio") becomes an
// extra OpenAI-compatible provider and must carry a BaseURL.
//
// Key resolution belongs to the engine: a request's LB-LLM-Key, then
// keysets, then Registry.ServerKey; NeedsKey says whether a missing key
// is an error (false for ollama, openai-compatible, extra compatible
// providers and hearth). The resolved key travels in ChatRequest.APIKey
// and is sent as the provider expects: Authorization: Bearer (OpenAI
// family, Cohere), x-api-key plus anthropic-version (Anthropic),
// x-goog-api-key (Gemini; never in the URL).
//
// Ollama embeddings use its OpenAI-compatible /v1/embeddings endpoint
// (same code path as OpenAI), not the native /api/embed, so one base URL
// serves both chat and embeddings.
//
// # Parameters a provider does not take
//
// The canonical request is OpenAI-shaped. Each adapter drops or maps what
// its provider lacks instead of letting the upstream fail; for the OpenAI
// family this is data: the hosts table in hosts.go, and the per-model
// rules of params.go (which parameters a model family rejects, which
// reasoning_effort values it takes, the output budget of its hidden
// reasoning):
//
//   - openai: max_tokens is sent as max_completion_tokens; reasoning models
//     (o-series, gpt-5 but gpt-5-chat, gpt-6) get no temperature, top_p,
//     penalties or stop, and reasoning_effort mapped to what they take
//     ("none" is "minimal" before gpt-5.1, "low" on the o-series); with
//     function tools gpt-5.2 to gpt-5.6 and gpt-6 get reasoning_effort
//     "none"; the o-series gets no parallel_tool_calls.
//   - mistral: tool_choice "required" is sent as "any"; no stream_options;
//     tool call ids are mapped to nine letters and digits (mistral.go);
//     content arrays of thinking and text chunks are read as the text;
//     embeddings are sent in requests of at most 16384 estimated tokens.
//   - perplexity: no tools/tool_choice/parallel_tool_calls; only one of the
//     two penalties (presence wins); no json_object response format;
//     citations and search_results come back as url_citation annotations.
//   - deepseek: json_schema becomes json_object with the schema in the
//     system prompt; no parallel_tool_calls; deepseek-v4 gets
//     reasoning_effort low or high, and "none" as thinking disabled;
//     reasoning_content of answers with tool calls is kept in the first
//     call's extra_content and sent back (echoReasoning).
//   - xai: reasoning models (grok-3-mini, grok-4*, grok-code, grok-build)
//     get no penalties or stop; reasoning_effort only for grok-3-mini,
//     grok-4.3 and grok-4.5 and later ("none" is "low" there).
//   - groq: reasoning_effort only for openai/gpt-oss (low|medium|high,
//     "none" is "low") and qwen/qwen3 (none|default).
//   - reasoning models with a hidden-reasoning budget: a max_tokens equal
//     to the Langbase default 1000 is raised (25000 for OpenAI, 32768 for
//     DeepSeek); any other value is kept.
//   - openrouter: reasoning_effort becomes {"reasoning":{"effort":...}}.
//   - ollama: tool_choice is dropped.
//   - ollama, openai-compatible and extra providers (local servers): a
//     presence or frequency penalty equal to the pipe default 1 is dropped.
//   - every host but openai and openrouter: role "developer" becomes "system";
//     stream_options.include_usage is sent only where the host supports it
//     (openai, groq, deepseek, xai, openrouter, ollama).
//   - anthropic: system/developer messages become the system prompt;
//     max_tokens defaults to 4096; penalties are dropped; sampling
//     parameters, thinking/effort and native structured output follow the
//     per-model table antRules (anthropic_rules.go); tool_choice required
//     -> {type:any} (on models that refuse forced tools: auto plus a system
//     instruction), parallel_tool_calls=false -> disable_parallel_tool_use;
//     the custom parameter anthropic_beta is the anthropic-beta header;
//     json_schema is output_config.format, or on older models a forced
//     tool whose input becomes the text content (finish_reason "stop");
//     json_object adds a system instruction; thinking blocks travel with
//     the tool calls they preceded (extra_content, with their model and
//     layout) and go back only to the model that produced them.
//   - google: penalties and parallel_tool_calls are dropped; tool and
//     response schemas go as full JSON Schema (parametersJsonSchema,
//     responseJsonSchema); json modes set responseMimeType
//     application/json; reasoning_effort and temperature follow the
//     per-model table gemRules (google_rules.go), and so does the larger
//     maxOutputTokens of thinking models; thought signatures travel in
//     extra_content; function calls and responses carry the call's id.
//   - cohere: top_p -> p (clamped to 0.01..0.99), penalties halved into
//     0..1 (negative -> 0), stop -> stop_sequences, tool_choice required ->
//     "REQUIRED", a forced function -> "REQUIRED" with only that tool;
//     a tool's strict -> strict_tools; tool calls go without
//     extra_content; parallel_tool_calls and reasoning_effort are dropped.
//
// Custom model parameters (ChatRequest.Extra) are merged into the upstream
// body unchanged and win over Hearth's own fields, except "model",
// "messages", "contents" and "stream", which would break the call, and
// "seed", which goes where each provider takes it (extra_params.go).
//
// # Reliability
//
// All adapters share one *http.Client (pooled keep-alive transport).
// Connection errors, 429 and 5xx are retried with exponential backoff and
// equal jitter (RetryPolicy), honouring Retry-After up to MaxRetryAfter; a
// longer Retry-After returns the 429 at once, and so does a 429 of an
// exhausted quota (OpenAI insufficient_quota and the billing codes, a
// per-day or per-month limit; quota.go), as a BAD_REQUEST that says so.
// Retries happen only before a
// 2xx answer is handed on, so a stream that has started is never retried.
// Config.Timeout bounds a non-stream call, and for a stream the wait for
// headers and then for each event. Cancelling the caller's context cancels
// the upstream request. A stream that ends without its terminal event
// (OpenAI "[DONE]" or a finish_reason, Anthropic message_stop, Gemini
// finishReason, Cohere message-end) makes Recv return an UPSTREAM_ERROR,
// never io.EOF.
//
// # Error mapping
//
// Upstream answers become *engine.Error values:
//
//	401, 403          BAD_REQUEST  "<provider> rejected the provider API key ..."
//	                  (deliberately not UNAUTHORIZED: the caller's Hearth key was
//	                  fine; the provider refused the provider key, which the
//	                  caller can fix with LB-LLM-Key or a keyset)
//	400, 404, 422 ... BAD_REQUEST  "<provider>: <provider's message>"
//	429               RATE_LIMITED with RetryAfter (seconds) from Retry-After
//	408, 504, timeout UPSTREAM_TIMEOUT
//	5xx, network      UPSTREAM_ERROR
//	cancelled         UPSTREAM_ERROR wrapping context.Canceled
//
// # Image, search and crawl adapters
//
// The image adapters (providers/images: OpenAI, Together, Google Gemini and
// Imagen, OpenRouter) take their base URLs from the same Config, so
// HEARTH_OPENAI_BASE_URL also moves image calls. They, Exa
// (providers/search) and Spider and Firecrawl (providers/crawl) call their
// services through Upstream, which shares this package's retry policy,
// timeout and error mapping; HTTPError and UpstreamStatus let them word a
// status their own way. CatalogueEntry gives them supportedSizes and
// supportedQualities. providers/crawl also holds Hearth's own crawler.
//
// # Adding a provider with its own wire format
//
// An OpenAI-compatible host is one row of the hosts table (hosts.go) plus
// its models in catalogue.go and a target in conformance_test.go's compat
// map. A provider with its own wire format touches these places:
//
//  1. The adapter, <name>.go (plus <name>_stream.go, <name>_embed.go):
//     implements engine.ChatModel (and engine.Embedder) with interface
//     guards; converts the canonical OpenAI-shaped request and maps what
//     the provider lacks (list it under "Parameters a provider does not
//     take" above); calls through Upstream for retries, timeouts and the
//     error mapping; a stream without its terminal event is an
//     UPSTREAM_ERROR.
//  2. registry.go: its default base URL in nativeURLs (which also makes
//     it a KnownProviders entry, so main.go reads HEARTH_<P>_BASE_URL and
//     HEARTH_<P>_API_KEY and test servers point it offline), and its case
//     in New's switch.
//  3. catalogue.go: its models, capabilities and prices for /v1/models.
//  4. engine/memory/models.go: its embedding models, if it embeds.
//  5. providers/fake/<name>.go: a fake upstream speaking the wire format,
//     streams and tool calls included.
//  6. conformance_test.go: a target with that fake in targets (the suite
//     fails for a known provider without one); quirks_test.go for its
//     parameter mapping.
//
// Then the tables of docs/providers.md (base URL, environment variables,
// key, embedding models).
//
// # Test doubles: the "hearth" provider
//
// hearth:echo and hearth:hash-embed are deterministic, offline TEST
// DOUBLES, not language models. They let demos, air-gapped installs and
// users' own test suites run pipes, agents and memories without keys or
// network. hearth:echo answers with the last user message (one word per
// stream chunk), answers {"echo": "..."} in JSON modes, calls a tool when
// tools are offered and the message contains "call_tool:<name> {json}" or
// tool_choice forces one, and honours max_tokens as a word limit.
// hearth:hash-embed returns 256-dimension L2-normalised feature-hashing
// vectors of words and word bigrams. The hearth moderator flags inputs
// containing "[flag]". They appear in the catalogue under "hearth" with
// zero cost.
package providers
