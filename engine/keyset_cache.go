package engine

import (
	"context"
	"errors"
)

// Provider keys served from memory on the run path: Resolve keeps, per
// provider and pair of scopes (the pipe's and the owner's), which scope
// holds the key and its sealed record, or that neither does. The record
// stays encrypted in the cache and is opened per call, so no plain
// provider key outlives the request that uses it. Set and Delete drop the
// scope's entries after they commit, so the next run on this node uses
// the new key; they and DeleteScopeTx publish TopicKeyset with the scope
// in their transaction. DeleteScopeTx runs inside another write (a pipe's
// deletion) and drops the scope before that commits: a run racing it may
// cache the old record again, for a pipe id that no run can name once the
// deletion commits. In cluster mode each node drops a scope when the
// change feed delivers its change, so a key changed on one node is used by
// the others within the feed's lag (see gateCache).

// TopicKeyset carries the scope ("owner:<login>", "pipe:<id>") whose
// provider keys changed.
const TopicKeyset = "keyset"

// keysetHit is what Resolve found for a provider: the scope holding its
// key and the sealed record, or scope "" for none.
type keysetHit struct {
	scope string
	rec   keysetRecord
}

// UseCluster turns the key cache on (following c's change feed when c is
// shared), and makes key
// writes publish to c's change feed. Call it once, before serving.
func (k *Keysets) UseCluster(c Cluster) {
	k.cluster = c
	if c == nil {
		return
	}
	k.cache = newGateCache[keysetHit](c)
	c.Subscribe(TopicKeyset, func(scope string) { k.cache.drop(scope) })
}

// publishScope records in tx that the keys of scope changed.
func (k *Keysets) publishScope(tx Tx, scope string) error {
	if k.cluster == nil {
		return nil
	}
	return k.cluster.Publish(tx, TopicKeyset, scope)
}

// first returns the key stored for provider under the pipe's scope, then
// the owner's ("" skips a scope), reading both in one snapshot or from
// the cache. The cache key is built in a stack buffer and the scope names
// only on a miss, so a cached miss (the key comes from the server) costs
// no allocation.
func (k *Keysets) first(ctx context.Context, provider, pipeID, owner string) (string, error) {
	var buf [192]byte
	ck := appendKeysetCacheKey(buf[:0], provider, pipeID, owner)
	hit, ok, gen := k.cache.getBytes(ck)
	if !ok {
		var err error
		if hit, err = k.firstStored(ctx, provider, pipeID, owner, gen, string(ck)); err != nil {
			return "", err
		}
	}
	if hit.scope == "" {
		return "", nil
	}
	plain, err := k.aead.Open(nil, hit.rec.Nonce, hit.rec.Ciphertext, []byte(hit.scope+"/"+provider))
	if err != nil {
		return "", undecryptableError(hit.scope, provider, err)
	}
	return string(plain), nil
}

// appendKeysetCacheKey appends the cache key of a provider and scope pair:
// provider, PipeScope(pipeID) and OwnerScope(owner) ("" for an absent
// one) separated by NUL bytes.
func appendKeysetCacheKey(b []byte, provider, pipeID, owner string) []byte {
	b = append(append(b, provider...), 0)
	if pipeID != "" {
		b = append(append(b, "pipe:"...), pipeID...)
	}
	b = append(b, 0)
	if owner != "" {
		b = append(append(b, "owner:"...), owner...)
	}
	return b
}

// firstStored reads the keysets of the pipe and of the owner in one
// snapshot and caches what it found under ck (unless gen is stale).
func (k *Keysets) firstStored(ctx context.Context, provider, pipeID, owner string, gen uint64, ck string) (keysetHit, error) {
	var scopes [2]string
	if pipeID != "" {
		scopes[0] = PipeScope(pipeID)
	}
	if owner != "" {
		scopes[1] = OwnerScope(owner)
	}
	var hit keysetHit
	err := k.store.View(ctx, func(tx Tx) error {
		for _, sc := range scopes {
			if sc == "" {
				continue
			}
			err := tx.Get(keysetKey(sc, provider), &hit.rec)
			if err == nil {
				hit.scope = sc
				return nil
			}
			if !errors.Is(err, ErrNotFound) {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return keysetHit{}, err
	}
	tags := scopes[:0:0]
	for _, sc := range scopes {
		if sc != "" {
			tags = append(tags, sc)
		}
	}
	k.cache.put(gen, ck, hit, tags...)
	return hit, nil
}
