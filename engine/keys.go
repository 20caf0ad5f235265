package engine

// Key schema of the record store. Every record lives under exactly one of
// these prefixes; secondary indexes are separate keys written in the same
// transaction as the record they point to.
//
//	acct/<login>                  Account (user or org)
//	apikey/<id>                   APIKey (hash only, never the key)
//	apikeyhash/<sha256 hex>       -> key id (lookup index; removed on revoke)
//	apikeyowner/<login>/<id>      -> "" (list index)
//	meta/<name>                   server metadata (schema version, secrets)
//
// Pipes, threads and runs (pipes.go, threads.go, runlog.go):
//
//	pipe/<owner>/<name>                  Pipe
//	pipeid/<pipe id>                     -> "<owner>/<name>" (pipe keys name pipes by id)
//	thread/<owner>/<thread id>           Thread (ids are per owner)
//	threadidx/<owner>/<inverted ns>/<id> -> "" (thread list, newest first)
//	msg/<thread key>/<seq %016d>         ThreadMessage (thread key: random, per thread)
//	run/<owner>/<run id>                 RunRecord (run ids sort newest first)
//	runpipe/<owner>/<pipe id>/<run id>   -> "" (runs by pipe)
//
// Other packages (pipes, memories, threads, runs, jobs, index snapshots,
// blobs) document their own prefixes next to their records, and all of them
// are listed here:
//
//	pipe/, pipeid/, memory/, doc/, chunk/, vec/, job/, thread/, threadidx/,
//	msg/, run/, runpipe/, trace/, keyset/, idx/, blob/, usage/
//	(engine/quota.go)
const (
	prefixAccount     = "acct/"
	prefixAPIKey      = "apikey/"
	prefixAPIKeyHash  = "apikeyhash/"
	prefixAPIKeyOwner = "apikeyowner/"
	prefixMeta        = "meta/"
)
