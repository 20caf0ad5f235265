package engine

// API keys served from memory: Authenticate keeps the principal of every
// valid key it resolved (by the key's hash; unknown keys are never cached,
// so a new key works at once). RevokeKey and the pipe writes that revoke
// pipe keys (Pipes.Delete, Pipes.RotateKey) drop the entries after they
// commit, so a revoked key is refused on the very next request on this
// node, and publish TopicKey with the key id in their transaction. In
// cluster mode every node keeps its own cache and drops a key when the
// change feed delivers its revoke, so a key revoked on one node is refused
// on the others within the feed's lag (see gateCache).

// UseCluster turns the key cache on (following c's change feed when c is
// shared), and makes revokes publish to c's change feed. Call it once, before serving.
func (a *Accounts) UseCluster(c Cluster) {
	a.cluster = c
	if c == nil {
		return
	}
	a.keys = newGateCache[Principal](c)
	c.Subscribe(TopicKey, func(id string) { a.keys.drop(id) })
}

// publishKey records in tx that key id was revoked.
func (a *Accounts) publishKey(tx Tx, id string) error {
	if a.cluster == nil {
		return nil
	}
	return a.cluster.Publish(tx, TopicKey, id)
}

// dropPipeKeys forgets the cached keys of a pipe, after a write that
// revoked them committed.
func (a *Accounts) dropPipeKeys(pipeID string) { a.keys.drop(pipeTag(pipeID)) }

func pipeTag(pipeID string) string { return "pipe/" + pipeID }

// cachePrincipal keeps p under the key hash unless an invalidation ran
// since gen.
func (a *Accounts) cachePrincipal(gen uint64, hash string, p *Principal) {
	tags := []string{p.KeyID}
	if p.PipeID != "" {
		tags = append(tags, pipeTag(p.PipeID))
	}
	a.keys.put(gen, hash, *p, tags...)
}
