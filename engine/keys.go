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
// Other packages (pipes, memories, threads, runs, jobs, index snapshots,
// blobs) document their own prefixes next to their records, and all of them
// are listed here:
//
//	pipe/, memory/, doc/, chunk/, vec/, job/, thread/, msg/, run/, trace/,
//	keyset/, idx/, blob/, usage/ (engine/quota.go)
const (
	prefixAccount     = "acct/"
	prefixAPIKey      = "apikey/"
	prefixAPIKeyHash  = "apikeyhash/"
	prefixAPIKeyOwner = "apikeyowner/"
	prefixMeta        = "meta/"
)
