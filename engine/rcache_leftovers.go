package engine

import (
	"context"
	"strings"
)

// Records of the response cache that outlive a change of its configuration:
//
//	rcacheidx/<index id>         "" (a semantic index the cache has used)
//	rcachesem/<owner>/<context>  per-context lists of embeddings, the former
//	                             layout of semantic mode (never written now)
//
// Turning the cache off leaves every entry without a sweeper, and leaving
// semantic mode (or changing its embedder) leaves an index nothing reads.
// SweepCacheLeftovers, run at every start, deletes them.
const (
	prefixCacheIndex = "rcacheidx/"
	prefixCacheSem   = "rcachesem/"
)

// CacheKeep says what the configuration in force still uses.
type CacheKeep struct {
	// Entries is set when the cache is on (exact or semantic).
	Entries bool
	// Index is the id of the semantic index in use ("" outside semantic mode).
	Index string
}

// CacheLeftovers counts what SweepCacheLeftovers deleted.
type CacheLeftovers struct {
	Entries, Indexes, Buckets int
	// Ran is false when another node held the sweep lock.
	Ran bool
}

// SweepCacheLeftovers records keep.Index as in use, then, under the
// cluster lock of the cache's sweeps, drops (with drop) every other
// semantic index the cache used, deletes the former per-context lists and,
// when the cache is off, every entry. In cluster mode every node should
// run the same cache configuration: a node started with another one sweeps
// what the others use (they then miss until they store answers again).
func SweepCacheLeftovers(ctx context.Context, store Store, cl Cluster, keep CacheKeep, drop func(ctx context.Context, id string) error) (CacheLeftovers, error) {
	var out CacheLeftovers
	if cl == nil {
		cl = &Local{}
	}
	if keep.Index != "" {
		if err := store.Update(ctx, func(tx Tx) error { return tx.PutRaw(prefixCacheIndex+keep.Index, []byte{}) }); err != nil {
			return out, err
		}
	}
	release, ok, err := cl.TryLock(ctx, cacheSweepLock)
	if err != nil || !ok {
		return out, err
	}
	defer release()
	out.Ran = true
	var stale []string
	err = store.View(ctx, func(tx Tx) error {
		return tx.Scan(prefixCacheIndex, "", func(k string, _ []byte) error {
			if id := strings.TrimPrefix(k, prefixCacheIndex); id != keep.Index {
				stale = append(stale, id)
			}
			return nil
		})
	})
	if err != nil {
		return out, err
	}
	for _, id := range stale {
		if err := drop(ctx, id); err != nil {
			return out, err
		}
		if err := store.Update(ctx, func(tx Tx) error { return tx.Delete(prefixCacheIndex + id) }); err != nil {
			return out, err
		}
		out.Indexes++
	}
	if out.Buckets, err = deleteCachePrefix(ctx, store, cl, prefixCacheSem); err != nil || keep.Entries {
		return out, err
	}
	n, err := deleteCachePrefix(ctx, store, cl, prefixCacheExp)
	if err != nil {
		return out, err
	}
	out.Entries, err = deleteCachePrefix(ctx, store, cl, prefixCache)
	if n > out.Entries {
		out.Entries = n
	}
	return out, err
}

// deleteCachePrefix deletes every key under prefix, cacheDeleteBatch keys a
// transaction, telling the other nodes to drop every hot copy; it returns
// how many went.
func deleteCachePrefix(ctx context.Context, store Store, cl Cluster, prefix string) (int, error) {
	deleted := 0
	for {
		var keys []string
		err := store.View(ctx, func(tx Tx) error {
			return tx.Scan(prefix, "", func(k string, _ []byte) error {
				if len(keys) == cacheDeleteBatch {
					return ErrStopScan
				}
				keys = append(keys, k)
				return nil
			})
		})
		if err != nil || len(keys) == 0 {
			return deleted, err
		}
		err = store.Update(ctx, func(tx Tx) error {
			for _, k := range keys {
				if err := tx.Delete(k); err != nil {
					return err
				}
			}
			return cl.Publish(tx, TopicResponseCache, "")
		})
		if err != nil {
			return deleted, err
		}
		deleted += len(keys)
	}
}
