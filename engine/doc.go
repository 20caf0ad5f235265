// Package engine is Hearth's domain: accounts and keys, pipes, threads,
// runs, memories, images, web tools and the agent, and the small
// interfaces they consume. It imports no adapter and no HTTP library; data
// flows server -> engine -> adapters, and server/app (the composition
// root) builds the adapters and hands them in.
//
// # Interfaces and who implements them
//
//	Store, Tx (store.go)               blob.Store (Badger); index/internal/memstore in tests
//	SearchIndex (search.go)            index.Manager (HNSW vectors, Bleve keywords)
//	ChunkSource (search.go)            memory.Service, read by index.Manager to rebuild keyword indexes
//	Providers (llm.go)                 providers.Registry
//	ChatModel, Embedder, Moderator     providers: OpenAI and OpenAI-compatible hosts, Anthropic,
//	                                   Google, Cohere, the offline "hearth" provider
//	ImageModels, ImageGenerator        providers/images
//	WebSearcher, Crawler (tools.go)    providers/search (Exa); providers/crawl (Spider, Firecrawl, built-in)
//	ToolServers, ToolSession           providers/mcp (MCP client)
//	  (toolservers.go)
//	Metrics (metrics.go)               server/metrics; Instrument* wrap the adapters above with it
//	MemoryLookup, Retriever (rag.go)   memory.Service, for pipe runs
//	telemetry.Exporter                 providers/otlp (OTLP/HTTP); TraceProviders and the
//	  (engine/telemetry)               memory and agent hooks open the spans it exports
//
// # Services and the routes they back
//
//	Accounts (account.go)              /v1/me, /v1/keys, the admin CLI
//	Keysets (keyset.go)                /v1/keysets, and the provider key of every model call
//	Pipes (pipes.go)                   /v1/pipes, /beta/org/:org/pipes
//	Runner (run.go), RunLog            /v1/pipes/run, /v1/runs, /v1/runs/:id, /v1/pipes/:name/runs
//	Budgets (budget.go)                /v1/budgets; metered by RunLog, checked before every spending call
//	Threads (threads.go)               /v1/threads
//	Traces (trace.go)                  /v1/traces
//	memory.Service (engine/memory)     /v1/memory, documents, uploads, retrieval, /beta memorysets,
//	                                   /v1/embed, /v1/chunker, /v1/parser
//	Images (images.go)                 /v1/images
//	Tools (tools.go)                   /v1/tools/web-search, /v1/tools/crawl
//	agent.Agent (engine/agent)         /v1/agent/run
//	the store's Backup                 /v1/admin/backup, hearth backup
//
// Sub-packages hold what is large enough to stand alone: engine/memory
// (memories, documents, ingestion, retrieval), engine/agent, engine/rank
// (hybrid fusion and score scaling: the one owner of ranking), engine/chunk,
// engine/parse (and its sandboxed child process), engine/filter (document
// meta filters).
//
// # Where things are
//
// The key schema of the store is in keys.go (memories: engine/memory's
// memory.go; the index's own keys: index/doc.go). Errors are one type with
// a code and a user-safe message (errors.go); server maps codes to HTTP
// statuses in one table. The data format version and its migrations are in
// format.go.
//
// # Names of functions that take storage
//
// A function XIn does what X does, but builds its result in storage the
// caller passes (a slice with spare capacity, a *Buf array, a *Slot, a
// *State), so that a request which keeps that storage with its own memory
// makes no allocation for it; the result may share that storage, which the
// caller then uses for that one result only. X, where it exists, is XIn
// with new storage. A suffix In means nothing else across Hearth's
// packages: a function reading in a transaction, or checking a range, says
// so in full (idKeyInTx, numberInRange). A type that is such storage is
// named for what it holds and ends in Buf (RunIDBuf) when it holds bytes.
package engine
