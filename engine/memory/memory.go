// Package memory is Hearth's memory engine: memories (named document
// stores), documents and their two-step signed upload, durable ingestion
// jobs (parse, chunk, embed, index) run by a bounded worker pool, hybrid
// retrieval with meta filters, and the embed/chunker/parser primitives.
//
// Key schema (see also engine/keys.go):
//
//	memory/<owner>/<name>           Memory
//	doc/<memoryID>/<document name>  Document
//	chunk/<memoryID>/<chunkID>      chunkRecord (text and document name)
//	job/<jobID>                     Job (ingest, purge or drop), FIFO by id
//	upload/<uploadID>               pending upload (step 1 of an upload)
//	blob/<memoryID>/<version>/...   uploaded bytes (engine.Store blobs; orphans swept, see orphans.go)
//
// A chunk id is "<version>.<n>": the version is the upload id of the
// document version the chunk belongs to ("t" + upload time + random, see
// newVersionID), so the live version of every
// document decides which chunks are visible to searches.
//
// Vectors are stored once, by the search index (idx/<memoryID>/v/...), which
// rebuilds its graph from them; interrupted ingestion asks the index which
// chunks it holds (SearchIndex.HasVectors) instead of keeping a copy. Data
// dirs written before that kept a copy under vec/, which Open deletes in
// the background.
package memory

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/chunk"
	"github.com/hearth-dev/hearth/engine/telemetry"
)

// Defaults and limits of memories (https://langbase.com/docs/api-reference/memory/create).
const (
	DefaultEmbeddingModel = "openai:text-embedding-3-large"
	DefaultTopK           = 10
	MaxTopK               = 100
	MaxDescription        = 2000
	MaxNameLength         = 100
)

// Memory is a named store of documents owned by a user or an org.
type Memory struct {
	// ID is internal and unique for the lifetime of the data dir: a memory
	// deleted and created again under the same name gets a new id, so
	// nothing left over from the old one can leak into the new one.
	ID             string `json:"id"`
	Owner          string `json:"owner"`
	Name           string `json:"name"`
	Description    string `json:"description"`
	EmbeddingModel string `json:"embedding_model"`
	ChunkSize      int    `json:"chunk_size"`
	ChunkOverlap   int    `json:"chunk_overlap"`
	TopK           int    `json:"top_k"`
	// Rerank, when set, reranks this memory's retrievals
	// (docs/memories-and-retrieval.md#reranking).
	Rerank *engine.RerankSpec `json:"rerank,omitempty"`
	// Chunking is how documents are cut
	// (docs/memories-and-retrieval.md#structure-aware-chunking); nil is
	// size/overlap chunking.
	Chunking  *chunk.Settings `json:"chunking,omitempty"`
	CreatedAt time.Time       `json:"created_at"`
	UpdatedAt time.Time       `json:"updated_at"`
}

// KeywordOnly reports whether the memory has no vectors (hearth:bm25).
func (m *Memory) KeywordOnly() bool { return m.EmbeddingModel == KeywordOnlyModel }

// Config wires a Service. Store, Index, Providers, Keysets and UploadSecret
// are required; zero values of the rest take the defaults.
type Config struct {
	Store     engine.Store
	Index     engine.SearchIndex
	Providers engine.Providers
	Keysets   *engine.Keysets
	// UploadSecret signs upload URLs (at least 32 bytes; main.go derives it
	// from the data dir's secret key).
	UploadSecret []byte
	// BaseURL prefixes the url field of memories (Config.PublicURL).
	BaseURL string
	// DefaultEmbeddingModel is the embedder of a memory created without
	// one ("" = DefaultEmbeddingModel).
	DefaultEmbeddingModel string
	// Workers is the size of the ingestion worker pool (default
	// DefaultWorkers).
	Workers int
	// MaxAttempts is how many times a job may be started and interrupted
	// (crash, kill) before its document is failed (default 3).
	MaxAttempts int
	// EmbedAttempts bounds the tries of one embedding batch on retryable
	// provider errors (rate limits, 5xx, timeouts), default 4; the waits
	// grow from RetryBaseDelay (default 2 s) to RetryMaxDelay (default 60 s)
	// and honour the provider's Retry-After up to RetryMaxDelay
	// (HEARTH_EMBED_RETRIES and HEARTH_EMBED_RETRY_MAX_WAIT). RetryMaxDelay
	// also caps the wait before a failed job is run again.
	EmbedAttempts  int
	RetryBaseDelay time.Duration
	RetryMaxDelay  time.Duration
	// UploadTTL is the lifetime of a signed upload URL (default 2 h).
	UploadTTL time.Duration
	// MaxChunksPerDocument fails documents that would produce more chunks
	// (default 100000).
	MaxChunksPerDocument int
	// BatchChars bounds the characters of one embedding request (default
	// 200000), on top of the embedder's MaxBatch.
	BatchChars int
	// Fusion weighs vector and keyword ranks in hybrid retrieval.
	Fusion Fusion
	// Parse turns document bytes into text, with the contract of
	// parse.Parse; ingestion and the parser primitive use it. Default:
	// parse.Parse in this process. main.go wires sandbox.Parser, which
	// parses PDFs and xlsx workbooks in a child process under a time and
	// memory limit, and bounds every format's text (HEARTH_PARSE_MAX_OUTPUT).
	Parse func(ctx context.Context, contentType, name string, data []byte) (string, error)
	// IdleWait is how long the dispatcher sleeps without news before it
	// looks at the job queue again (default 30 s); new jobs wake it at once.
	IdleWait time.Duration
	// Cluster is what this node shares with the other nodes on the store
	// (nil: engine.Local, one process owns the store). In cluster mode
	// ingestion jobs are claimed under leases by any node and the sweeps
	// run on one node at a time (see lease.go).
	Cluster engine.Cluster
	// LeaseTTL is how long a claimed job stays held without a heartbeat
	// (default 30 s); in cluster mode another node takes over a running job
	// whose lease has passed.
	LeaseTTL time.Duration
	Logger   *slog.Logger
	// Tracer, when set, traces ingestion jobs (ingest_trace.go); nil: off.
	Tracer *telemetry.Tracer
	// Metrics receives ingestion outcomes (nil: none).
	Metrics engine.Metrics
	// Quotas keeps per-owner storage usage and refuses uploads past the
	// limits (nil: no accounting).
	Quotas *engine.Quotas
	// Crawler fetches the pages of crawls into memories (nil: crawling
	// is refused); CrawlTimeout bounds one crawl (default 30 min).
	Crawler      engine.SiteCrawler
	CrawlTimeout time.Duration
	// Now and Sleep are the clock (tests inject them).
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// Service is the memory engine. Open starts the ingestion workers; Close
// stops them (before the store is closed).
type Service struct {
	cfg   Config
	store engine.Store
	index engine.SearchIndex
	log   *slog.Logger
	now   func() time.Time

	docsets docsetCache
	// memcache holds the memory records retrieval reads (memcache.go).
	memcache memCache
	// chunks holds chunk records retrieval read, in cluster mode
	// (chunkcache.go).
	chunks  chunkCache
	ingest  *ingester
	cluster engine.Cluster
	metrics engine.Metrics
	quotas  *engine.Quotas
}

var (
	_ engine.Retriever    = (*Service)(nil)
	_ engine.MemoryLookup = (*Service)(nil)
)

// New builds the service; it starts no work until Open.
func New(cfg Config) (*Service, error) {
	if cfg.Store == nil || cfg.Index == nil || cfg.Providers == nil || cfg.Keysets == nil {
		return nil, errors.New("memory: Store, Index, Providers and Keysets are required")
	}
	if len(cfg.UploadSecret) < 32 {
		return nil, errors.New("memory: UploadSecret must be at least 32 bytes")
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers()
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 3
	}
	if cfg.EmbedAttempts <= 0 {
		cfg.EmbedAttempts = 4
	}
	if cfg.RetryBaseDelay <= 0 {
		cfg.RetryBaseDelay = 2 * time.Second
	}
	if cfg.RetryMaxDelay <= 0 {
		cfg.RetryMaxDelay = time.Minute
	}
	cfg.RetryBaseDelay = min(cfg.RetryBaseDelay, cfg.RetryMaxDelay)
	if cfg.UploadTTL <= 0 {
		cfg.UploadTTL = 2 * time.Hour
	}
	if cfg.MaxChunksPerDocument <= 0 {
		cfg.MaxChunksPerDocument = 100000
	}
	if cfg.BatchChars <= 0 {
		cfg.BatchChars = 200000
	}
	if cfg.Fusion == (Fusion{}) {
		cfg.Fusion = DefaultFusion()
	}
	if err := cfg.Fusion.validate(); err != nil {
		return nil, err
	}
	if cfg.IdleWait <= 0 {
		cfg.IdleWait = 30 * time.Second
	}
	if cfg.Cluster == nil {
		cfg.Cluster = &engine.Local{}
	}
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = 30 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.CrawlTimeout <= 0 {
		cfg.CrawlTimeout = DefaultCrawlTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleepCtx
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	s := &Service{cfg: cfg, store: cfg.Store, index: cfg.Index, log: cfg.Logger, now: cfg.Now,
		metrics: engine.MetricsOrNop(cfg.Metrics), quotas: cfg.Quotas, cluster: cfg.Cluster}
	s.docsets.init()
	s.ingest = newIngester(s)
	return s, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Keys of the records this package owns.
func memoryPrefix(owner string) string      { return "memory/" + owner + "/" }
func memoryKey(owner, name string) string   { return memoryPrefix(owner) + name }
func docPrefix(memID string) string         { return "doc/" + memID + "/" }
func docKey(memID, name string) string      { return docPrefix(memID) + name }
func chunkPrefix(memID string) string       { return "chunk/" + memID + "/" }
func chunkKey(memID, chunkID string) string { return chunkPrefix(memID) + chunkID }
func blobID(memID, version string) string   { return memID + "/" + version }

var memoryNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ValidateMemoryName checks a memory name: 1 to 100 letters, digits, '.',
// '_' or '-', starting with a letter or digit (names go into URL paths).
func ValidateMemoryName(field, name string) error {
	if name == "" {
		return engine.FieldError(field, "is required")
	}
	if len(name) > MaxNameLength || !memoryNameRE.MatchString(name) || strings.Contains(name, "..") {
		return engine.FieldError(field, "%q is not a valid memory name: use 1-%d letters, digits, '.', '_' or '-', starting with a letter or digit", name, MaxNameLength)
	}
	return nil
}

// CreateRequest is the body of POST /v1/memory. Pointer fields are nil when
// absent and take their defaults.
type CreateRequest struct {
	Name           string `json:"name"`
	Description    string `json:"description"`
	EmbeddingModel string `json:"embedding_model"`
	ChunkSize      *int   `json:"chunk_size"`
	ChunkOverlap   *int   `json:"chunk_overlap"`
	TopK           *int   `json:"top_k"`
	// Rerank names the memory's reranker (docs/memories-and-retrieval.md#reranking).
	Rerank *engine.RerankSpec `json:"rerank,omitempty"`
	// Chunking sets how documents are cut
	// (docs/memories-and-retrieval.md#structure-aware-chunking).
	Chunking *chunk.Settings `json:"chunking,omitempty"`
}

// Create validates and stores a new memory. chunk_overlap defaults to 2048,
// or to a quarter of chunk_size when chunk_size is 2048 or less, so that a
// small chunk_size alone is valid.
func (s *Service) Create(ctx context.Context, owner string, req CreateRequest) (*Memory, error) {
	m, err := s.newMemory(ctx, owner, req)
	if err != nil {
		return nil, err
	}
	err = s.store.Update(ctx, func(tx engine.Tx) error {
		if ok, err := tx.Exists(memoryKey(owner, m.Name)); err != nil {
			return err
		} else if ok {
			return engine.Errorf(engine.CodeConflict, "memory %q already exists", m.Name)
		}
		if err := s.memoryChanged(tx, owner, m.Name); err != nil {
			return err
		}
		return tx.Put(memoryKey(owner, m.Name), m)
	})
	s.memoryWritten(owner, m.Name)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// newMemory validates req and returns the memory it describes, with a new
// id, without storing it.
func (s *Service) newMemory(ctx context.Context, owner string, req CreateRequest) (*Memory, error) {
	if err := ValidateMemoryName("name", req.Name); err != nil {
		return nil, err
	}
	if err := engine.ScopeOf(ctx).CheckMemoryCreate(req.Name); err != nil {
		return nil, err
	}
	if len([]rune(req.Description)) > MaxDescription {
		return nil, engine.FieldError("description", "must be at most %d characters", MaxDescription)
	}
	model := strings.TrimSpace(req.EmbeddingModel)
	if model == "" {
		model = s.DefaultEmbeddingModel()
	}
	ref, err := s.checkEmbeddingModel("embedding_model", model)
	if err != nil {
		return nil, err
	}
	size := chunk.MemoryDefaultSize
	if req.ChunkSize != nil {
		size = *req.ChunkSize
	}
	overlap := chunk.MemoryDefaultOverlap
	if req.ChunkOverlap != nil {
		overlap = *req.ChunkOverlap
	} else if overlap > chunk.MaxOverlap(size) {
		overlap = size / 4
	}
	if err := chunk.MemoryLimits().Validate(size, overlap, "chunk_size", "chunk_overlap"); err != nil {
		return nil, err
	}
	topK := DefaultTopK
	if req.TopK != nil {
		topK = *req.TopK
	}
	if topK < 1 || topK > MaxTopK {
		return nil, engine.FieldError("top_k", "must be between 1 and %d, got %d", MaxTopK, topK)
	}
	if err := s.checkRerank("rerank", req.Rerank); err != nil {
		return nil, err
	}
	chunking, err := req.Chunking.Normalize("chunking", size)
	if err != nil {
		return nil, err
	}
	if req.Rerank.Off() {
		req.Rerank = nil
	}
	now := engine.NowFrom(ctx, s.now).UTC()
	m := &Memory{
		ID: "m" + engine.NewID(ctx, 20), Owner: owner, Name: req.Name, Description: req.Description,
		EmbeddingModel: ref.String(), ChunkSize: size, ChunkOverlap: overlap, TopK: topK,
		Rerank: req.Rerank, Chunking: chunking, CreatedAt: now, UpdatedAt: now,
	}
	return m, nil
}

// Get returns the owner's memory by name, or NOT_FOUND.
func (s *Service) Get(ctx context.Context, owner, name string) (*Memory, error) {
	var m Memory
	err := s.store.View(ctx, func(tx engine.Tx) error { return getMemory(tx, owner, name, &m) })
	if err != nil {
		return nil, err
	}
	return &m, nil
}

func getMemory(tx engine.Tx, owner, name string, m *Memory) error {
	if err := tx.Get(memoryKey(owner, name), m); err != nil {
		if engine.IsNotFound(err) {
			return engine.NotFound("memory", name)
		}
		return err
	}
	return nil
}

// MemoryExists implements engine.Retriever.
func (s *Service) MemoryExists(ctx context.Context, owner, name string) (bool, error) {
	var ok bool
	err := s.store.View(ctx, func(tx engine.Tx) error {
		var err error
		ok, err = tx.Exists(memoryKey(owner, name))
		return err
	})
	return ok, err
}

// List returns the owner's memories, by name.
func (s *Service) List(ctx context.Context, owner string) ([]*Memory, error) {
	out := []*Memory{}
	err := s.store.View(ctx, func(tx engine.Tx) error {
		return engine.ScanJSON(tx, memoryPrefix(owner), func(m *Memory) error {
			out = append(out, m)
			return nil
		})
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, err
}

// DefaultEmbeddingModel is the embedder of a memory created without one.
func (s *Service) DefaultEmbeddingModel() string {
	if s.cfg.DefaultEmbeddingModel != "" {
		return s.cfg.DefaultEmbeddingModel
	}
	return DefaultEmbeddingModel
}

// URL is the memory's page in the studio (/studio/memory/<owner>/<name>).
func (s *Service) URL(m *Memory) string {
	return s.cfg.BaseURL + "/studio/memory/" + url.PathEscape(m.Owner) + "/" + url.PathEscape(m.Name)
}

// Delete removes a memory with its documents, chunks, vectors, blobs and
// index entries. The memory disappears in one transaction that also queues
// a durable drop job; the drop then runs at once, and a crash half-way is
// finished by the job after a restart.
func (s *Service) Delete(ctx context.Context, owner, name string) error {
	var m Memory
	var job *Job
	err := s.store.Update(ctx, func(tx engine.Tx) error {
		if err := getMemory(tx, owner, name, &m); err != nil {
			return err
		}
		if err := tx.Delete(memoryKey(owner, name)); err != nil {
			return err
		}
		if err := s.memoryChanged(tx, owner, name); err != nil {
			return err
		}
		job = s.newJob(JobDrop, &m, "", nil)
		if err := s.publishDocs(tx, m.ID); err != nil {
			return err
		}
		return putJob(tx, job)
	})
	s.memoryWritten(owner, name)
	if err != nil {
		return err
	}
	s.docsets.invalidate(m.ID)
	s.ingest.runInline(ctx, job)
	return nil
}
