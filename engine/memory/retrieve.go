package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/filter"
	"github.com/hearth-dev/hearth/engine/rank"
	"github.com/hearth-dev/hearth/engine/telemetry"
)

// Limits of retrieval (https://langbase.com/docs/api-reference/memory/retrieve).
const (
	DefaultRetrieveTopK = 20
	MaxQueryChars       = 10000
	MaxRetrieveMemories = 50
)

// Fusion weighs the vector and keyword rankings of hybrid retrieval, fused
// by reciprocal rank fusion (rank.FuseRRF) with rank constant K.
type Fusion struct {
	VectorWeight  float64
	KeywordWeight float64
	K             int
}

// DefaultFusion weighs both rankings equally, with the usual K of 60.
func DefaultFusion() Fusion { return Fusion{VectorWeight: 1, KeywordWeight: 1, K: rank.DefaultRRFK} }

func (f *Fusion) validate() error {
	if f.K <= 0 {
		f.K = rank.DefaultRRFK
	}
	if f.VectorWeight < 0 || f.KeywordWeight < 0 || f.VectorWeight+f.KeywordWeight == 0 {
		return errors.New("memory: fusion weights must be >= 0 and not both 0")
	}
	return nil
}

// MemoryQuery names one memory to search, its optional meta filter, and
// optional settings of this memory that override the request's.
type MemoryQuery struct {
	Name     string
	Filter   filter.Filter
	Rerank   *engine.RerankSpec
	MinScore *float64
}

// RetrieveRequest is a retrieval: one query over one or more memories.
type RetrieveRequest struct {
	Query    string
	Memories []MemoryQuery
	// TopK is the number of chunks returned over all memories. With
	// PerMemory it is ignored and each memory contributes its own top_k
	// (pipe runs).
	TopK      int
	PerMemory bool
	// TolerateEmbedFailure makes a failed query embedding never an error:
	// the memories are searched by keyword only, even when none has
	// anything to find (pipe runs: a run must not fail because retrieval's
	// embedder is down).
	TolerateEmbedFailure bool
	// Rerank overrides the memories' rerankers (RerankOff turns them off).
	Rerank *engine.RerankSpec
	// MinScore drops results scoring below it
	// (docs/memories-and-retrieval.md#score-thresholds).
	MinScore *float64
	// KeywordWeight overrides the server's keyword weight of hybrid
	// fusion (HEARTH_RETRIEVE_KEYWORD_WEIGHT) for this request.
	KeywordWeight *float64
}

// Retrieval is the answer of Search: the results, best first, and how they
// were found.
type Retrieval struct {
	Results []Result
	// KeywordFallback lists the embedding models whose query embedding
	// failed (provider down, missing key, ...): the memories using them were
	// searched by keyword only. Empty when every ranking was used.
	KeywordFallback []string
	// RerankFallback lists the rerankers that failed: the memories using
	// them answered in their first-stage order.
	RerankFallback []string
}

// Result is one retrieved chunk.
type Result struct {
	Text string
	// Similarity is the relevance in [0, 1], the order of the results. For
	// a memory searched by vector only it is the cosine similarity; in
	// hybrid and keyword-only search it is the fused rank score scaled so
	// that 1 means first in every ranking; after reranking it is the
	// reranker's relevance score (docs/memories-and-retrieval.md#score-thresholds).
	Similarity float64
	Memory     string
	Document   string
	// Meta is the document's upload meta plus documentName.
	Meta    map[string]string
	ChunkID string
	// Heading is the chunk's heading path and Section the enclosing part of
	// its section handed to the model in parent-child mode
	// (docs/memories-and-retrieval.md#structure-aware-chunking); both are
	// empty with size chunking.
	Heading string
	Section string
}

// Retrieve is Search without the retrieval mode.
func (s *Service) Retrieve(ctx context.Context, owner string, req RetrieveRequest) ([]Result, error) {
	r, err := s.Search(ctx, owner, req)
	if err != nil {
		return nil, err
	}
	return r.Results, nil
}

// search embeds the query once per embedding model, searches every named
// memory of owner (vector and keyword, fused), filters chunks by their
// document's meta before ranking, merges and returns the best chunks first.
//
// When the query cannot be embedded with a model, the memories using it
// are searched by keyword only (every chunk is keyword-indexed), the
// answer's KeywordFallback names the model, and a warning is logged. The
// embedding error is returned only when no named memory has a searchable
// document, since then the fallback has nothing to answer from (and the
// caller learns that its embedder is not working), unless
// TolerateEmbedFailure is set.
func (s *Service) search(ctx context.Context, owner string, req RetrieveRequest) (*Retrieval, error) {
	query := strings.TrimSpace(req.Query)
	switch {
	case query == "":
		return nil, engine.FieldError("query", "is required")
	case utf8.RuneCountInString(query) > MaxQueryChars:
		return nil, engine.FieldError("query", "must be at most %d characters", MaxQueryChars)
	case len(req.Memories) == 0:
		return nil, engine.FieldError("memory", "must name at least one memory")
	case len(req.Memories) > MaxRetrieveMemories:
		return nil, engine.FieldError("memory", "may name at most %d memories", MaxRetrieveMemories)
	}
	if !req.PerMemory && (req.TopK < 1 || req.TopK > MaxTopK) {
		return nil, engine.FieldError("topK", "must be between 1 and %d, got %d", MaxTopK, req.TopK)
	}
	fu, err := s.checkSettings(&req)
	if err != nil {
		return nil, err
	}
	mems, err := s.readMemories(ctx, owner, req.Memories)
	if err != nil {
		return nil, err
	}
	qvecs := map[string][]float32{}
	failed := map[string]error{}
	var firstErr error
	var fallback []string
	for i := range mems {
		m := &mems[i]
		model := m.EmbeddingModel
		if m.KeywordOnly() || qvecs[model] != nil || failed[model] != nil {
			continue
		}
		v, err := s.embedQuery(ctx, owner, model, query)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			failed[model] = err
			fallback = append(fallback, model)
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		qvecs[model] = v
	}
	if firstErr != nil {
		if !req.TolerateEmbedFailure {
			searchable, err := s.anySearchable(ctx, mems)
			if err != nil {
				return nil, err
			}
			if !searchable {
				return nil, firstErr
			}
		}
		for _, model := range fallback {
			var names []string
			for _, m := range mems {
				if m.EmbeddingModel == model {
					names = append(names, m.Name)
				}
			}
			s.log.Warn("query embedding failed; retrieving by keyword only", "owner", owner, "model", model,
				"memories", names, "err", failed[model])
		}
		sort.Strings(fallback)
	}
	var all []Result
	var rerankFailed []string
	seen := map[string]bool{}
	for i := range mems {
		m := &mems[i]
		q := &req.Memories[i]
		k := req.TopK
		if req.PerMemory {
			k = m.TopK
		}
		spec := effectiveRerank(q, &req, m)
		depth := k
		if spec != nil {
			if spec.TopN > 0 {
				k = spec.TopN
			}
			depth = rank.RerankCandidates(k)
		}
		hits, err := s.searchMemory(ctx, m, q.Filter, query, qvecs[m.EmbeddingModel], depth, fu)
		if err != nil {
			return nil, err
		}
		if spec != nil && len(hits) > 0 {
			telemetry.FromContext(ctx).SetAttrs(telemetry.Bool("hearth.retrieval.reranked", true))
			if err := s.fillTexts(ctx, mems[i:i+1], hits); err != nil {
				return nil, err
			}
			hits = live(hits)
			var ok bool
			if hits, ok = s.rerankMemory(ctx, owner, query, spec, hits, k); !ok && !slices.Contains(rerankFailed, spec.Model) {
				rerankFailed = append(rerankFailed, spec.Model)
			}
		}
		minScore := req.MinScore
		if q.MinScore != nil {
			minScore = q.MinScore
		}
		for _, h := range hits {
			if minScore != nil && h.Similarity < *minScore {
				continue
			}
			if key := m.ID + "/" + h.ChunkID; !seen[key] {
				seen[key] = true
				all = append(all, h)
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Similarity > all[j].Similarity })
	if !req.PerMemory && len(all) > req.TopK {
		all = all[:req.TopK]
	}
	if err := s.fillTexts(ctx, mems, all); err != nil {
		return nil, err
	}
	sort.Strings(rerankFailed)
	return &Retrieval{Results: live(all), KeywordFallback: fallback, RerankFallback: rerankFailed}, nil
}

// live drops, in place, the results whose chunk was purged since the search
// (their text did not load).
func live(rs []Result) []Result {
	out := rs[:0]
	for _, r := range rs {
		if r.Text != "" {
			out = append(out, r)
		}
	}
	return out
}

// anySearchable reports whether any of the memories has a live document.
func (s *Service) anySearchable(ctx context.Context, mems []Memory) (bool, error) {
	for i := range mems {
		ds, err := s.docset(ctx, mems[i].ID)
		if err != nil {
			return false, err
		}
		if len(ds) > 0 {
			return true, nil
		}
	}
	return false, nil
}

// embedQuery embeds a retrieval query with a memory's model.
func (s *Service) embedQuery(ctx context.Context, owner, model, query string) ([]float32, error) {
	ref, err := engine.ParseModelID("embedding_model", model)
	if err != nil {
		return nil, err
	}
	emb, key, err := s.embedder(ctx, ref, owner, "")
	if err != nil {
		return nil, err
	}
	vecs, err := s.embedAll(ctx, emb, ref, key, engine.EmbedQuery, 0, []string{query}, false)
	if err != nil {
		return nil, err
	}
	return normalize(vecs[0]), nil
}

// searchMemory returns the k best chunks of one memory (texts not filled).
func (s *Service) searchMemory(ctx context.Context, m *Memory, f filter.Filter, query string, qvec []float32, k int, fu Fusion) ([]Result, error) {
	ctx = engine.WithSearchStart(ctx, time.Now())
	ds, err := s.docset(ctx, m.ID)
	if err != nil || len(ds) == 0 {
		return nil, err
	}
	allow := func(id string) bool {
		d := ds[chunkVersion(id)]
		return d != nil && (f.Empty() || f.Match(d.Meta))
	}
	depth := min(max(3*k, 30), 300)
	var vec, kw []engine.ChunkHit
	if qvec != nil && fu.VectorWeight > 0 {
		if vec, err = s.index.SearchVector(ctx, m.ID, qvec, depth, allow); err != nil {
			return nil, err
		}
	}
	if qvec == nil || fu.KeywordWeight > 0 {
		if kw, err = s.index.SearchKeyword(ctx, m.ID, query, depth, allow); err != nil {
			return nil, err
		}
	}
	orderTies(vec)
	orderTies(kw)
	var ranked []engine.ChunkHit
	switch {
	case qvec == nil: // keyword-only memory, or its query embedding failed
		ranked = rank.ScaleRRF(rank.FuseRRF(nil, kw, 0, 1, fu.K), 1, fu.K)
	case fu.KeywordWeight == 0: // vector only: cosine similarity as is
		ranked = vec
		for i := range ranked {
			ranked[i].Score = max(0, min(1, ranked[i].Score))
		}
	default:
		ranked = rank.ScaleRRF(rank.FuseRRF(vec, kw, fu.VectorWeight, fu.KeywordWeight, fu.K), fu.VectorWeight+fu.KeywordWeight, fu.K)
	}
	if len(ranked) > k {
		ranked = ranked[:k]
	}
	out := make([]Result, len(ranked))
	for i, h := range ranked {
		d := ds[chunkVersion(h.ID)]
		out[i] = Result{Similarity: h.Score, Memory: m.Name, Document: d.Name, Meta: d.Meta, ChunkID: h.ID}
	}
	return out, nil
}

// readMemories reads the named memories of owner: from the cache
// (memcache.go), the others at one instant in one read (one round trip on
// PostgreSQL, outside any transaction).
func (s *Service) readMemories(ctx context.Context, owner string, qs []MemoryQuery) ([]Memory, error) {
	keys := make([]string, len(qs))
	for i, q := range qs {
		if q.Name == "" {
			return nil, engine.FieldError("memory.name", "is required")
		}
		keys[i] = memoryKey(owner, q.Name)
	}
	vals, err := s.readMemoryRecords(ctx, keys)
	if err != nil {
		return nil, err
	}
	mems := make([]Memory, len(qs))
	for i, v := range vals {
		if v == nil {
			return nil, engine.NotFound("memory", qs[i].Name)
		}
		if err := json.Unmarshal(v, &mems[i]); err != nil {
			return nil, fmt.Errorf("decode %s: %w", keys[i], err)
		}
	}
	return mems, nil
}

// fillTexts loads the text of every result: the chunks in one read, then
// the parents the chunks name in another (each one round trip on
// PostgreSQL, outside any transaction, for the chunks a cluster node has
// not cached: chunkcache.go). A chunk and its parent belong to
// one document version and are written and purged together, so the two
// reads need no common snapshot: a parent purged between them leaves the
// chunk's section empty, as a missing parent always has.
func (s *Service) fillTexts(ctx context.Context, mems []Memory, results []Result) error {
	ids := map[string]string{}
	for _, m := range mems {
		ids[m.Name] = m.ID
	}
	var idx []int
	var keys []string
	for i := range results {
		if results[i].Text != "" {
			continue // loaded for reranking
		}
		idx = append(idx, i)
		keys = append(keys, chunkKey(ids[results[i].Memory], results[i].ChunkID))
	}
	if len(keys) == 0 {
		return nil
	}
	vals, err := s.readChunkRecords(ctx, keys)
	if err != nil {
		return err
	}
	var pidx []int
	var pkeys []string
	for j, i := range idx {
		r := vals[j]
		if r == nil {
			continue
		}
		results[i].Text, results[i].Heading, results[i].Section = r.Text, r.Heading, r.Parent
		if r.ParentChunk != "" && r.ParentChunk != results[i].ChunkID {
			pidx = append(pidx, i)
			pkeys = append(pkeys, chunkKey(ids[results[i].Memory], r.ParentChunk))
		}
	}
	if len(pkeys) == 0 {
		return nil
	}
	if vals, err = s.readChunkRecords(ctx, pkeys); err != nil {
		return err
	}
	for j, i := range pidx {
		results[i].Section = ""
		if p := vals[j]; p != nil {
			results[i].Section = p.Parent
		}
	}
	return nil
}

// RetrieveForRun implements engine.Retriever for pipe runs: each memory
// contributes its own top_k chunks, merged best first. A missing memory is
// a NOT_FOUND error naming it; an empty query retrieves nothing. A query
// that cannot be embedded never fails the run: the memories are searched
// by keyword only (see Search).
func (s *Service) RetrieveForRun(ctx context.Context, owner string, memories []engine.MemoryRef, query string) ([]engine.RAGChunk, error) {
	if strings.TrimSpace(query) == "" || len(memories) == 0 {
		return nil, nil
	}
	qs := make([]MemoryQuery, len(memories))
	for i, m := range memories {
		qs[i] = MemoryQuery{Name: m.Name, Rerank: m.Rerank, MinScore: m.MinScore}
	}
	if utf8.RuneCountInString(query) > MaxQueryChars {
		query = string([]rune(query)[:MaxQueryChars])
	}
	res, err := s.Retrieve(ctx, owner, RetrieveRequest{Query: query, Memories: qs, PerMemory: true, TolerateEmbedFailure: true})
	if err != nil {
		return nil, err
	}
	// In parent-child mode several matched children may share a section:
	// the model gets it once, at the rank of its best child.
	out := make([]engine.RAGChunk, 0, len(res))
	sections := map[string]bool{}
	for _, r := range res {
		if r.Section != "" {
			key := r.Memory + "\x00" + r.Document + "\x00" + r.Section
			if sections[key] {
				continue
			}
			sections[key] = true
		}
		out = append(out, engine.RAGChunk{Text: r.Text, DocName: r.Document, Memory: r.Memory, ChunkID: r.ChunkID, Score: r.Similarity,
			Heading: r.Heading, Section: r.Section})
	}
	return out, nil
}
