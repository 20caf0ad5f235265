package engine

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"strings"
	"time"
)

// Semantic mode records, beside the entries of rcache.go:
//
//	rcachesem/<owner>/<context hash>  semBucket
//
// A bucket lists the entries whose requests differ only in their last user
// message, each with that message's embedding. A call that misses its exact
// key embeds its last user message and serves the entry of its bucket whose
// embedding is closest, when the cosine similarity reaches the threshold.
// Buckets live in the store like the entries, so every node of a cluster
// sees them; they are read from the store on each semantic lookup (no hot
// copies). Two nodes adding to one bucket at the same moment may lose one
// item, which only costs a later semantic miss.
const prefixCacheSem = "rcachesem/"

const (
	// DefaultCacheSimilarity is the cosine similarity a semantic hit needs
	// when the operator sets none.
	DefaultCacheSimilarity = 0.95
	// CacheSemanticBucketMax bounds the items of one bucket; past it the
	// oldest item is dropped (its entry still answers exact lookups).
	CacheSemanticBucketMax = 64
)

// SemanticCacheConfig turns on the response cache's semantic mode.
type SemanticCacheConfig struct {
	// Model is the embedder of last user messages.
	Model ModelRef
	// Similarity is the least cosine similarity of a hit, in (0, 1].
	Similarity float64
}

// semBucket is the items of one owner and context hash, oldest first.
type semBucket struct {
	Items []semItem `json:"items"`
}

// semItem is one entry's key hash, expiry and normalised embedding (float32
// little-endian, so a bucket encodes as base64 rather than decimal text).
type semItem struct {
	Key     string    `json:"key"`
	Expires time.Time `json:"expires"`
	Vec     []byte    `json:"vec"`
}

// packVec returns v as float32 little-endian bytes.
func packVec(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func cacheSemKey(owner, ctxHash string) string { return prefixCacheSem + owner + "/" + ctxHash }

// semQuery is a call's semantic side: the text of its last user message
// and the rest of the request; embed fills in the context hash and the
// embedding once, so exact hits pay for neither.
type semQuery struct {
	text    string
	ref     ModelRef
	rest    ChatRequest
	stream  bool
	ctxHash string
	vec     []float32
	tried   bool
}

// semanticQuery returns the semantic side of req, or nil when the cache
// has no semantic mode or the last message is not a user's plain text.
func (cc *cachedChat) semanticQuery(req *ChatRequest, stream bool) *semQuery {
	if cc.c.cfg.Semantic == nil || len(req.Messages) == 0 {
		return nil
	}
	last := req.Messages[len(req.Messages)-1]
	if last.Role != "user" {
		return nil
	}
	for _, p := range last.Content.Parts {
		if p.Type != "text" {
			return nil
		}
	}
	text := last.Content.String()
	if strings.TrimSpace(text) == "" {
		return nil
	}
	q := &semQuery{text: text, ref: cc.ref, rest: *req, stream: stream}
	q.rest.Messages = req.Messages[: len(req.Messages)-1 : len(req.Messages)-1]
	return q
}

// contextKey hashes everything of the exact key but the last user
// message, under a prefix of its own so it never equals an exact key.
func contextKey(ref ModelRef, req *ChatRequest, stream bool) (string, error) {
	k, err := cacheKey(ref, req, stream)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte("semantic-context/" + k))
	return hex.EncodeToString(sum[:]), nil
}

// embed returns q's normalised embedding, computing it and q's context
// hash once; nil when the embedder fails (logged: the call goes on as a miss).
func (cc *cachedChat) embed(ctx context.Context, q *semQuery) []float32 {
	if q.tried {
		return q.vec
	}
	q.tried = true
	sc := cc.c.cfg.Semantic
	if !cc.hashContext(q) {
		return nil
	}
	em, err := cc.embedders.Embedder(sc.Model)
	if err == nil {
		var vecs [][]float32
		vecs, err = em.Embed(ctx, &EmbedRequest{Model: sc.Model.Model, Inputs: []string{q.text}, Purpose: EmbedQuery,
			APIKey: cc.embedders.ServerKey(sc.Model.Provider)})
		if err == nil && (len(vecs) != 1 || normalise(vecs[0]) == nil) {
			err = Errorf(CodeUpstream, "embedder %s returned no usable vector", sc.Model)
		}
		if err == nil {
			q.vec = vecs[0]
		}
	}
	if err != nil {
		cc.c.log.Warn("response cache: cannot embed for a semantic lookup", "model", sc.Model.String(), "err", err)
	}
	return q.vec
}

// hashContext fills in q's context hash once (before the model is called,
// which may change the request); false when it cannot be hashed.
func (cc *cachedChat) hashContext(q *semQuery) bool {
	if q == nil {
		return false
	}
	if q.ctxHash == "" {
		h, err := contextKey(q.ref, &q.rest, q.stream)
		if err != nil {
			cc.c.log.Warn("response cache: cannot hash a request's context", "err", err)
			return false
		}
		q.ctxHash = h
	}
	return true
}

// normalise scales v to unit length in place; nil when v is empty or zero.
func normalise(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if len(v) == 0 || n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return nil
	}
	n = math.Sqrt(n)
	for i := range v {
		v[i] = float32(float64(v[i]) / n)
	}
	return v
}

// cosine is the dot product of the unit vector a and the packed unit
// vector b of the same size.
func cosine(a []float32, b []byte) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
	}
	return s
}

// semanticHit returns the live entry of q's bucket closest to q's
// embedding when it reaches the threshold, with its similarity.
func (cc *cachedChat) semanticHit(ctx context.Context, owner string, q *semQuery) (*cacheEntry, float64) {
	vec := cc.embed(ctx, q)
	if vec == nil {
		return nil, 0
	}
	var b semBucket
	err := cc.c.store.View(ctx, func(tx Tx) error { return tx.Get(cacheSemKey(owner, q.ctxHash), &b) })
	if err != nil {
		if !IsNotFound(err) {
			cc.c.log.Warn("response cache: semantic lookup failed", "err", err)
		}
		return nil, 0
	}
	now := cc.c.cfg.Clock()
	best, bestSim := "", -2.0
	for _, it := range b.Items {
		if len(it.Vec) != 4*len(vec) || !now.Before(it.Expires) {
			continue
		}
		if s := cosine(vec, it.Vec); s > bestSim {
			best, bestSim = it.Key, s
		}
	}
	if best == "" || bestSim < cc.c.cfg.Semantic.Similarity {
		return nil, 0
	}
	e, ok, err := cc.c.lookup(ctx, owner, best)
	if err != nil {
		cc.c.log.Warn("response cache: lookup failed", "err", err)
	}
	if !ok || e.Sem != q.ctxHash {
		return nil, 0
	}
	return e, math.Min(bestSim, 1)
}

// putSemItem records key's embedding in its bucket (within save's
// transaction), replacing an older item of key and dropping the oldest
// items past CacheSemanticBucketMax.
func putSemItem(tx Tx, owner, ctxHash string, it semItem) error {
	k := cacheSemKey(owner, ctxHash)
	var b semBucket
	if err := tx.Get(k, &b); err != nil && !IsNotFound(err) {
		return err
	}
	items := b.Items[:0]
	for _, old := range b.Items {
		if old.Key != it.Key {
			items = append(items, old)
		}
	}
	items = append(items, it)
	if n := len(items) - CacheSemanticBucketMax; n > 0 {
		items = items[n:]
	}
	return tx.Put(k, semBucket{Items: items})
}

// dropSemItems removes the items of deleted entries from their buckets,
// inside the deleting transaction; bySem maps "<owner>/<context hash>" to
// the entry hashes that went.
func dropSemItems(tx Tx, bySem map[string]map[string]bool) error {
	for ob, gone := range bySem {
		k := prefixCacheSem + ob
		var b semBucket
		switch err := tx.Get(k, &b); {
		case IsNotFound(err):
			continue
		case err != nil:
			return err
		}
		items := b.Items[:0]
		for _, it := range b.Items {
			if !gone[it.Key] {
				items = append(items, it)
			}
		}
		if len(items) == 0 {
			if err := tx.Delete(k); err != nil {
				return err
			}
			continue
		}
		if err := tx.Put(k, semBucket{Items: items}); err != nil {
			return err
		}
	}
	return nil
}

// Similarity is the least cosine similarity of a semantic hit (0 when the
// cache has no semantic mode).
func (c *ResponseCache) Similarity() float64 {
	if c.cfg.Semantic == nil {
		return 0
	}
	return c.cfg.Semantic.Similarity
}
