package engine

// Key schema of the record store. Every record lives under exactly one of
// these prefixes; secondary indexes are separate keys written in the same
// transaction as the record they point to.
//
//	acct/<login>                  Account (user or org)
//	apikey/<id>                   APIKey (hash only, never the key)
//	apikeyhash/<sha256 hex>       -> key id (lookup index; removed on revoke)
//	apikeyowner/<login>/<id>      -> "" (list index)
//	meta/<name>                   server metadata (meta/format: data format, engine/format.go;
//	                              meta/thread-id-key: key of signed thread ids, threads_signed_key.go;
//	                              meta/models: model entries of hearth apply, models_applied.go)
//
// Pipes, threads and runs (pipes.go, threads.go, runlog.go):
//
//	pipe/<owner>/<name>                  Pipe
//	pipeid/<pipe id>                     -> "<owner>/<name>" (pipe keys name pipes by id)
//	thread/<owner>/<thread id>           Thread (ids are per owner)
//	threadidx/<owner>/<inverted ns>/<id> -> "" (thread list, newest first)
//	threadgone/<owner>/<thread id>       tombstone of a deleted thread with a signed id
//	                                     (threads_virtual.go)
//	msg/<thread key>/<seq %016d>         ThreadMessage (thread key: random, per thread;
//	                                     seqs run 0..next_seq-1 with no gaps, so the
//	                                     newest messages are read by key, backwards)
//	run/<owner>/<run id>                 RunRecord (run ids sort newest first)
//	runpipe/<owner>/<pipe id>/<run id>   -> "" (runs by pipe)
//
// Memories (engine/memory, documented in memory.go):
//
//	memory/<owner>/<name>            Memory
//	doc/<memory id>/<document name>  Document (its current and live versions)
//	chunk/<memory id>/<chunk id>     chunk text and document name (chunk id: <version>.<n>)
//	vec/<memory id>/<chunk id>       no longer written: vectors live only in the index (idx/);
//	                                 records of older releases are deleted at start
//	job/<time-ordered id>            ingestion, purge and drop jobs
//	upload/<upload id>               pending upload (step 1), swept after expiry
//
// Other packages (pipes, memories, threads, runs, jobs, index snapshots,
// blobs) document their own prefixes next to their records, and all of them
// are listed here:
//
//	pipe/, pipeid/, memory/, doc/, chunk/, vec/, job/, upload/, thread/,
//	threadidx/, threadgone/, msg/, run/, runpipe/, trace/, keyset/, idx/, blob/, usage/
//	(engine/quota.go), budget/, spend/ (engine/budget.go), response/ (engine/responses.go),
//	rcache/, rcacheexp/ (engine/rcache.go), deployment/ (engine/deployment_store.go)
const (
	prefixAccount     = "acct/"
	prefixAPIKey      = "apikey/"
	prefixAPIKeyHash  = "apikeyhash/"
	prefixAPIKeyOwner = "apikeyowner/"
	prefixMeta        = "meta/"
)
