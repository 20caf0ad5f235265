package index

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// Options configures a Manager. Zero fields take the defaults.
type Options struct {
	// HNSW holds the graph parameters (M, EfConstruction, EfSearch).
	HNSW HNSWConfig
	// ExactThreshold: memories with fewer live vectors are searched exactly
	// (a scan is as fast as the graph there, and exact). Default 4096.
	ExactThreshold int
	// CompactFraction: a graph is rebuilt without its tombstones once they
	// exceed this fraction of its nodes. Default 0.2.
	CompactFraction float64
	// SnapshotInterval is how often changed graphs are snapshotted (and
	// compacted) in the background. Default 2 minutes; negative disables the
	// background loop (Flush and Close still snapshot).
	SnapshotInterval time.Duration
	// KeywordAnalyzer is the Bleve analyzer for chunk text. Default "en"
	// (lower-casing, English stop words, Porter stemming).
	KeywordAnalyzer string
	// Logger receives load, rebuild and snapshot events. Default slog.Default().
	Logger *slog.Logger
	// Cluster is shared with the other nodes on the same store (cluster
	// mode). Default &engine.Local{}: one process, no change log, no
	// subscription, no polling.
	Cluster engine.Cluster
	// PollInterval is how often, when Cluster.Shared(), the stored sequence
	// numbers of the loaded memories are compared with this node's, in case
	// a notification was lost. Default 1 second.
	PollInterval time.Duration
	// LogRetention is how long change log entries are kept, when
	// Cluster.Shared(), after they are covered by a snapshot; a node that
	// falls further behind rebuilds from the vector records. Default 10
	// minutes.
	LogRetention time.Duration
}

func (o Options) withDefaults() Options {
	o.HNSW = o.HNSW.withDefaults()
	if o.ExactThreshold <= 0 {
		o.ExactThreshold = 4096
	}
	if o.CompactFraction <= 0 || o.CompactFraction >= 1 {
		o.CompactFraction = 0.2
	}
	if o.SnapshotInterval == 0 {
		o.SnapshotInterval = 2 * time.Minute
	}
	if o.KeywordAnalyzer == "" {
		o.KeywordAnalyzer = "en"
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Cluster == nil {
		o.Cluster = &engine.Local{}
	}
	if o.PollInterval <= 0 {
		o.PollInterval = time.Second
	}
	if o.LogRetention <= 0 {
		o.LogRetention = 10 * time.Minute
	}
	return o
}

const (
	defaultPartSize = 512 << 10 // snapshot part size, well under Badger's 1 MB value guidance
	partsPerTxn     = 4         // keeps each snapshot transaction near 2 MB
	catchUpBytes    = 16 << 20  // change log bytes read in one catch-up transaction
	// maxTxnBytes bounds the vector bytes of one write transaction.
	// Vectors under the store's value threshold (4 KiB: up to about 1,000
	// dimensions) count in full towards Badger's transaction bound, 15 % of
	// its memtable: 2.4 MiB with a store on disk's 16 MiB memtables
	// (blob/memory.go). 1.5 MiB and maxTxnOps keys (about 0.3 MB) stay
	// under it.
	maxTxnBytes = 3 << 19
	maxTxnOps   = 4000
)

// Manager implements engine.SearchIndex: one HNSW graph and one Bleve index
// per memory, loaded on first use, persisted in the engine.Store (graph
// snapshots and vectors) and under a directory (Bleve).
type Manager struct {
	store    engine.Store
	dir      string
	opts     Options
	log      *slog.Logger
	partSize int
	// shared is opts.Cluster.Shared(): other nodes write the same store.
	shared bool

	// source holds the chunk texts keyword indexes are rebuilt from
	// (engine.ChunkSource, set by SetChunkSource).
	source atomic.Value

	mu      sync.Mutex
	mems    map[string]*memIndex
	closed  bool
	stop    chan struct{}
	wg      sync.WaitGroup
	pending map[string]bool // memories to catch up (cluster mode; "" = all)
	wake    chan struct{}
}

// memIndex is the state of one memory. mu serialises writers, loading,
// snapshots and drops; searches only need loaded to be true.
type memIndex struct {
	id     string
	mu     sync.Mutex
	loaded atomic.Bool
	vec    *HNSW

	seq     uint64 // last change committed to the store
	gen     uint64 // generation of the stored snapshot (0: none)
	dirty   bool   // graph differs from the stored snapshot
	dropped bool
	info    LoadInfo
	snapB   int64

	// kwMu guards kw: replacing or closing it takes the write lock, which
	// waits for the batch being written (writeKeyword holds the read
	// lock), and finding it takes the read lock, so Add calls go on while
	// a buffered batch is analysed and written in the background.
	kwMu sync.RWMutex
	kw   *keywordIndex
	// kwSeq is the keyword sequence number last committed to the store;
	// kwStale is set when a change could not be applied to the Bleve
	// index, which is then rebuilt before its next change.
	kwSeq   uint64
	kwStale bool

	// Cluster mode only (see doc.go, "Cluster mode"): kwAt is the change
	// the local Bleve index has applied (mi.seq is the graph's), and marks
	// are this node's observations of the stored seq over time, which tell
	// which change log entries are older than Options.LogRetention.
	kwAt  uint64
	marks []seqMark
	// seqReads shares the reads of the stored seq before searches.
	seqReads seqReads

	adds  addQueue // Add calls waiting to be applied together
	kwBuf kwBuffer // texts added and not yet written to kw
}

type seqMark struct {
	at  time.Time
	seq uint64
}

// LoadInfo says how a memory's graph was restored when it was first used.
type LoadInfo struct {
	FromSnapshot bool          // a valid snapshot was loaded
	Replayed     int           // vectors inserted from the store (all of them on a rebuild)
	Removed      int           // snapshot vectors no longer in the store
	Took         time.Duration // total load time
	// KeywordRebuilt says why the keyword index was rebuilt from the chunk
	// texts ("" when it was used as it was).
	KeywordRebuilt string
}

// MemoryStats describes one loaded memory, for metrics.
type MemoryStats struct {
	MemoryID      string
	Vectors       int   // live vectors
	Tombstones    int   // deleted vectors awaiting compaction
	Dim           int   // vector dimension (0 when empty or keyword-only)
	Bytes         int64 // estimated memory of vectors, ids and graph links
	SnapshotBytes int64 // size of the stored snapshot
	KeywordDocs   uint64
	Load          LoadInfo
}

// NewManager returns a Manager over store with Bleve indexes under
// bleveDir/<memoryID>. It does no work until Open.
func NewManager(store engine.Store, bleveDir string, opts Options) *Manager {
	opts = opts.withDefaults()
	return &Manager{
		store: store, dir: bleveDir, opts: opts, log: opts.Logger,
		partSize: defaultPartSize, mems: map[string]*memIndex{},
		shared: opts.Cluster.Shared(),
	}
}

// SetChunkSource sets the provider of the chunk texts a missing,
// unreadable or stale keyword index is rebuilt from (the memory engine,
// which server/app registers). Set it before the first use of the Manager;
// without one, such an index is left as it is and an error is logged.
func (m *Manager) SetChunkSource(src engine.ChunkSource) { m.source.Store(&src) }

func (m *Manager) chunkSource() engine.ChunkSource {
	if p, ok := m.source.Load().(*engine.ChunkSource); ok {
		return *p
	}
	return nil
}

// Open creates the Bleve root directory and starts the background
// snapshot loop. Memories are loaded lazily, on first use.
func (m *Manager) Open(ctx context.Context) error {
	if err := os.MkdirAll(m.dir, 0o755); err != nil {
		return engine.Wrap(err, engine.CodeInternal, "cannot create the keyword index directory")
	}
	m.stop = make(chan struct{})
	if m.opts.SnapshotInterval > 0 {
		m.wg.Add(1)
		go m.loop(m.opts.SnapshotInterval)
	}
	if m.shared {
		m.pending, m.wake = map[string]bool{}, make(chan struct{}, 1)
		m.opts.Cluster.Subscribe(changeTopic, m.notify)
		m.wg.Add(1)
		go m.follow(m.opts.PollInterval)
	}
	return nil
}

func (m *Manager) loop(every time.Duration) {
	defer m.wg.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			if err := m.Maintain(context.Background()); err != nil {
				m.log.Error("index maintenance failed", "err", err)
			}
		}
	}
}

// Close stops the background loop, snapshots every changed graph and closes
// the Bleve indexes.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.mu.Unlock()
	if m.stop != nil {
		close(m.stop)
		m.wg.Wait()
	}
	err := m.Flush(context.Background())
	for _, mi := range m.all() {
		mi.kwMu.Lock()
		if mi.kw != nil {
			err = errors.Join(err, mi.kw.close())
			mi.kw = nil
		}
		mi.kwMu.Unlock()
	}
	return err
}

// Flush writes the buffered keyword texts (see kwBuffer) and snapshots
// every graph that changed since its last snapshot.
func (m *Manager) Flush(ctx context.Context) error {
	var err error
	for _, mi := range m.all() {
		m.flushKeyword(mi)
		mi.mu.Lock()
		err = errors.Join(err, m.snapshot(ctx, mi))
		mi.mu.Unlock()
	}
	return err
}

// Maintain compacts graphs with too many tombstones and snapshots changed
// ones; in cluster mode it also trims the change logs. The background loop
// calls it; tests and tools may too.
func (m *Manager) Maintain(ctx context.Context) error {
	var err error
	for _, mi := range m.all() {
		m.flushKeyword(mi)
		mi.mu.Lock()
		if mi.loaded.Load() && !mi.dropped {
			dead, live := mi.vec.Tombstones(), mi.vec.Len()
			if dead >= 64 && float64(dead) > m.opts.CompactFraction*float64(dead+live) {
				start := time.Now()
				mi.vec.Compact()
				mi.dirty = true
				m.log.Info("index compacted", "memory", mi.id, "removed", dead, "live", live, "took", time.Since(start))
			}
			err = errors.Join(err, m.snapshot(ctx, mi))
			if m.shared {
				err = errors.Join(err, m.trimLog(ctx, mi))
			}
		}
		mi.mu.Unlock()
	}
	return err
}

// Stats describes every loaded memory, sorted by id.
func (m *Manager) Stats() []MemoryStats {
	var out []MemoryStats
	for _, mi := range m.all() {
		if !mi.loaded.Load() {
			continue
		}
		mi.mu.Lock()
		s := MemoryStats{
			MemoryID: mi.id, Vectors: mi.vec.Len(), Tombstones: mi.vec.Tombstones(),
			Dim: mi.vec.dim(), Bytes: mi.vec.Bytes(), SnapshotBytes: mi.snapB, Load: mi.info,
		}
		mi.mu.Unlock()
		m.flushKeyword(mi)
		mi.kwMu.RLock()
		if mi.kw != nil {
			s.KeywordDocs = mi.kw.count()
		}
		mi.kwMu.RUnlock()
		out = append(out, s)
	}
	return out
}

func (m *Manager) all() []*memIndex {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*memIndex, 0, len(m.mems))
	for _, mi := range m.mems {
		out = append(out, mi)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// mem returns the loaded state of a memory, loading it on first use.
func (m *Manager) mem(ctx context.Context, id string) (*memIndex, error) {
	if err := checkMemoryID(id); err != nil {
		return nil, err
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, engine.Errorf(engine.CodeUnavailable, "search index is closed")
	}
	mi, ok := m.mems[id]
	if !ok {
		mi = &memIndex{id: id}
		m.mems[id] = mi
	}
	m.mu.Unlock()
	if mi.loaded.Load() {
		return mi, nil
	}
	mi.mu.Lock()
	defer mi.mu.Unlock()
	if !mi.loaded.Load() {
		if err := m.load(ctx, mi); err != nil {
			return nil, engine.Wrap(err, engine.CodeInternal, "cannot load the search index")
		}
		mi.loaded.Store(true)
	}
	return mi, nil
}

func (m *Manager) bleveDir(id string) string { return filepath.Join(m.dir, id) }

// keyword returns the memory's Bleve index, opening it (and creating it when
// create is set) on first use; nil when it does not exist.
func (m *Manager) keyword(mi *memIndex, create bool) (*keywordIndex, error) {
	mi.kwMu.RLock()
	kw := mi.kw
	mi.kwMu.RUnlock()
	if kw != nil {
		return kw, nil
	}
	mi.kwMu.Lock()
	defer mi.kwMu.Unlock()
	if mi.kw == nil {
		kw, err := openKeyword(m.bleveDir(mi.id), m.opts.KeywordAnalyzer, create)
		if err != nil {
			return nil, engine.Wrap(err, engine.CodeInternal, "cannot open the keyword index")
		}
		mi.kw = kw
	}
	return mi.kw, nil
}

var errDropped = engine.Errorf(engine.CodeConflict, "the memory was deleted while this change was in progress")

var _ engine.SearchIndex = (*Manager)(nil)
