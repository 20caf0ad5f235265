package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strings"
)

// Semantic mode keeps the normalised embedding of each entry's last user
// message in Hearth's own vector index (SemanticIndex: index.Manager in the
// server), one index per embedding model (SemanticIndexID). An item's id
// is "<scope>.<entry hash>", where the scope hashes the owner and the
// context hash (everything of the exact key but the last user message:
// model, parameters, system prompt, earlier messages). A call that misses
// its exact key embeds its last user message and searches the index for
// the closest items of its own scope only (the search's filter admits the
// scope's ids); the closest live entry whose similarity reaches the
// threshold answers. The entry is read under the caller's owner and must
// carry the same context hash, so another tenant's or context's answer is
// never served.
//
// Items are added after their entry is stored and removed after it is
// deleted (expiry, the cap, a refresh that moves it to another context),
// each in the index's own transaction: a failure or a race between the two
// leaves an item without entry (lookups skip it) or an entry without item
// (it answers exact lookups only), never a wrong answer. In cluster mode
// the vectors live in the shared store and each node's index is a replica
// brought up to date from the change feed before every search (package
// index, "Cluster mode"), so a paraphrase through one node hits the answer
// another node stored.

const (
	// DefaultCacheSimilarity is the cosine similarity a semantic hit needs
	// when the operator sets none.
	DefaultCacheSimilarity = 0.95
	// semCandidates is how many of the closest items of a scope a lookup
	// considers (the closest may belong to an expired entry not yet swept).
	semCandidates = 4
	// semIndexPrefix starts the ids of the semantic indexes (memory ids
	// start with "m", so the two never share store keys).
	semIndexPrefix = "rcache-"
)

// SemanticIndex is the vector index semantic mode keeps its embeddings in
// (index.Manager implements it: the subset of SearchIndex it uses).
type SemanticIndex interface {
	Add(ctx context.Context, memoryID string, chunks []IndexedChunk) error
	Remove(ctx context.Context, memoryID string, chunkIDs []string) error
	SearchVector(ctx context.Context, memoryID string, vec []float32, k int, allow func(chunkID string) bool) ([]ChunkHit, error)
}

// SemanticCacheConfig turns on the response cache's semantic mode.
type SemanticCacheConfig struct {
	// Model is the embedder of last user messages.
	Model ModelRef
	// Similarity is the least cosine similarity of a hit, in (0, 1].
	Similarity float64
	// Index holds the embeddings; without one the cache answers exact
	// lookups only (and logs why).
	Index SemanticIndex
}

// SemanticIndexID is the id, in the SemanticIndex, of the index of the
// embeddings model makes: another embedder starts another index (its
// vectors may have another size), and SweepCacheLeftovers drops the old one.
func SemanticIndexID(model ModelRef) string {
	sum := sha256.Sum256([]byte(model.String()))
	return semIndexPrefix + hex.EncodeToString(sum[:8])
}

// semScope is the prefix, dot included, of the item ids of owner's entries
// with context hash ctxHash.
func semScope(owner, ctxHash string) string {
	sum := sha256.Sum256([]byte(owner + "\n" + ctxHash))
	return hex.EncodeToString(sum[:16]) + "."
}

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
	if cc.c.semIndex == nil || len(req.Messages) == 0 {
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

// semanticHit searches the index for the items of q's scope closest to
// q's embedding and returns the first live entry among those reaching the
// threshold, with its similarity.
func (cc *cachedChat) semanticHit(ctx context.Context, owner string, q *semQuery) (*cacheEntry, float64) {
	c := cc.c
	vec := cc.embed(ctx, q)
	if vec == nil {
		return nil, 0
	}
	scope := semScope(owner, q.ctxHash)
	hits, err := c.semIndex.SearchVector(ctx, c.semID, vec, semCandidates, func(id string) bool { return strings.HasPrefix(id, scope) })
	if err != nil {
		c.log.Warn("response cache: semantic lookup failed", "err", err)
		return nil, 0
	}
	for _, h := range hits {
		if h.Score < c.cfg.Semantic.Similarity {
			break
		}
		if !strings.HasPrefix(h.ID, scope) {
			continue
		}
		e, ok, err := c.lookup(ctx, owner, h.ID[len(scope):])
		if err != nil {
			c.log.Warn("response cache: lookup failed", "err", err)
		}
		if ok && e.Sem == q.ctxHash {
			return e, math.Min(h.Score, 1)
		}
	}
	return nil, 0
}

// indexSemItem puts the embedding of owner's entry hash, stored with
// context hash ctxHash, in the index, and removes its item of an older
// context oldCtx.
func (c *ResponseCache) indexSemItem(ctx context.Context, owner, hash, ctxHash, oldCtx string, vec []float32) {
	if c.semIndex == nil {
		return
	}
	if oldCtx != "" && oldCtx != ctxHash {
		c.removeSemItems(ctx, []string{semScope(owner, oldCtx) + hash})
	}
	if ctxHash == "" || vec == nil {
		return
	}
	err := c.semIndex.Add(ctx, c.semID, []IndexedChunk{{ID: semScope(owner, ctxHash) + hash, Vector: vec}})
	if err != nil {
		c.log.Warn("response cache: cannot index an answer for semantic lookups", "err", err)
	}
}

// removeSemItems removes the items ids of deleted entries from the index.
func (c *ResponseCache) removeSemItems(ctx context.Context, ids []string) {
	if c.semIndex == nil || len(ids) == 0 {
		return
	}
	if err := c.semIndex.Remove(ctx, c.semID, ids); err != nil {
		c.log.Warn("response cache: cannot remove answers from the semantic index", "err", err)
	}
}

// Similarity is the least cosine similarity of a semantic hit (0 when the
// cache has no semantic mode).
func (c *ResponseCache) Similarity() float64 {
	if c.semIndex == nil {
		return 0
	}
	return c.cfg.Semantic.Similarity
}
