package engine

import (
	"github.com/hearth-dev/hearth/engine/guard"

	"context"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// RunRecord is the usage record of one pipe run. It holds no prompt or
// completion text, so it is kept even when the pipe's store is off.
//
// Key schema: run/<owner>/<id> holds the record; runpipe/<owner>/<pipe
// id>/<id> indexes a pipe's run by pipe (runs without a pipe have no
// entry; see putRun). Ids start with the inverted start time, so a
// forward scan lists the newest runs first.
type RunRecord struct {
	ID     string `json:"id"`
	Owner  string `json:"owner_login"`
	PipeID string `json:"pipe_id"`
	Pipe   string `json:"pipe"`
	// PipeVersion is the pipe version the run used (0: a pipe not changed
	// since versions began).
	PipeVersion int    `json:"pipe_version,omitempty"`
	Model       string `json:"model"`
	// Deployment names the deployment that served the run when its model is
	// served by several servers
	// (docs/providers.md#deployments-one-model-on-several-servers).
	Deployment       string `json:"deployment,omitempty"`
	ThreadID         string `json:"thread_id"`
	Endpoint         string `json:"endpoint"`
	Stream           bool   `json:"stream"`
	Status           string `json:"status"`
	Error            string `json:"error,omitempty"`
	PromptTokens     int    `json:"prompt_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
	TotalTokens      int    `json:"total_tokens"`
	// CachedTokens are the prompt tokens read from the provider's prompt
	// cache (priced at its cache-read price).
	CachedTokens int `json:"cached_tokens,omitempty"`
	// CacheWriteTokens are the prompt tokens written to the provider's
	// prompt cache, CacheWrite1hTokens the part of them written for one
	// hour (each priced at its cache-write price).
	CacheWriteTokens   int       `json:"cache_write_tokens,omitempty"`
	CacheWrite1hTokens int       `json:"cache_write_1h_tokens,omitempty"`
	LatencyMs          int64     `json:"latency_ms"`
	FirstTokenMs       *int64    `json:"first_token_ms,omitempty"`
	CostUSD            *float64  `json:"cost_usd"`
	CreatedAt          time.Time `json:"created_at"`
	// Cache is how the response cache served the run (hit, miss, refresh,
	// bypass; empty when the run did not ask for it). A hit called no
	// model: it has no tokens and costs nothing.
	Cache string `json:"cache,omitempty"`

	// KeyID is the API key the run was made with (budgets count per key).
	KeyID string `json:"key_id,omitempty"`
	// Kind tells runs apart in Usage: RunKindPipe, RunKindAgent,
	// RunKindCompletion or RunKindImage (older records: see RunKindOf).
	Kind string `json:"kind,omitempty"`
	// ToolCalls are the MCP tool calls an agent run made.
	ToolCalls []RunToolCall `json:"tool_calls,omitempty"`
	// Images is how many images an image run generated (priced per image).
	Images int `json:"images,omitempty"`
	// ContentStored reports that the run's messages and completion were
	// kept (docs/pipes-and-threads.md#run-log); GET /v1/runs/{id} returns them.
	ContentStored bool `json:"content_stored,omitempty"`
	// Guard are the guardrail actions taken on the run
	// (docs/guardrails.md); they name rules, never the matched text.
	Guard []guard.Event `json:"guard,omitempty"`
	// content is the text to keep when the pipe or the owner opted in.
	content *runContentItem
}

// Run statuses.
const (
	RunSuccess   = "success"
	RunError     = "error"
	RunCancelled = "cancelled"
)

const (
	prefixRun     = "run/"
	prefixRunPipe = "runpipe/"
	runQueueSize  = 4096
	runBatchSize  = 256
	// runBackPressure is how long Record waits for room in a full queue
	// before it drops the record (a store that stopped answering must not
	// hold every request).
	runBackPressure = 2 * time.Second
)

// NewRunID returns a run id that sorts newest first, its random part drawn
// like NewID.
func NewRunID(ctx context.Context, start time.Time) string {
	var b [32]byte
	return string(appendRunID(ctx, b[:0], start))
}

// appendRunID appends the run id of NewRunID to b.
func appendRunID(ctx context.Context, b []byte, start time.Time) []byte {
	var digits [20]byte
	n := strconv.AppendInt(digits[:0], math.MaxInt64-start.UnixNano(), 10)
	for range 19 - len(n) {
		b = append(b, '0')
	}
	return appendNewID(ctx, append(b, n...), 6)
}

// RunLog records runs off the request path: Record only queues, and one
// worker writes batches (group commit: every record queued while a batch
// was being written, or within 5 ms of the batch's first record, goes into
// it, up to 256 per transaction).
// When the queue is full Record waits for room (back-pressure on the
// request that records) for up to 2 s, then drops the record and counts it;
// a failed write is logged, never reported to the caller. Close flushes
// what is queued, so a graceful shutdown loses nothing; a crash loses at
// most the queued records (4096) and the batch being written (256).
//
// The queue lives in one process's memory: in cluster mode each node has
// its own and writes its own records to the shared store; nothing in it is
// read by other nodes before it is written.
type RunLog struct {
	store     Store
	providers Providers
	log       *slog.Logger
	queue     chan runItem
	done      chan struct{}
	closeOnce sync.Once
	mu        sync.RWMutex
	closed    bool
	dropped   atomic.Int64
	meter     RunMeter // runlog_meter.go
	// retention and now date stored run content (runlog_content.go).
	retention time.Duration
	now       func() time.Time
	sweepStop func()
	// linger is how long a batch waits for more records, and written and
	// commits count what was written (runlog_batch.go).
	linger           time.Duration
	written, commits atomic.Int64
	// valueHint is the largest record value written so far, the buffer
	// size putRun starts from (the writer goroutine's own; each node
	// learns its own, nothing is shared).
	valueHint int
	// costs holds the prices of the batch being written, which its
	// records point to until the batch is written (the writer
	// goroutine's own, reused by every batch).
	costs []float64
}

// NewRunLog starts the recorder. providers (optional) prices runs from the
// catalogue; log (optional) receives write failures.
func NewRunLog(store Store, providers Providers, log *slog.Logger) *RunLog {
	return newRunLog(store, providers, log, runLinger)
}

func newRunLog(store Store, providers Providers, log *slog.Logger, linger time.Duration) *RunLog {
	if log == nil {
		log = slog.Default()
	}
	l := &RunLog{store: store, providers: providers, log: log, queue: make(chan runItem, runQueueSize), done: make(chan struct{}),
		linger: linger, valueHint: runValueHint}
	go l.work()
	return l
}

// Record queues a run record. It returns at once unless the queue is
// full; then it waits for room, up to 2 s.
func (l *RunLog) Record(r RunRecord) {
	if l == nil {
		return
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return
	}
	select {
	case l.queue <- runItem{rec: r}:
		return
	default:
	}
	t := time.NewTimer(runBackPressure)
	defer t.Stop()
	select {
	case l.queue <- runItem{rec: r}:
	case <-t.C:
		l.dropped.Add(1)
	}
}

// Dropped reports how many records were dropped because the queue was full.
func (l *RunLog) Dropped() int64 { return l.dropped.Load() }

// Close stops accepting records and waits until the queued ones are written.
func (l *RunLog) Close() error {
	if l == nil {
		return nil
	}
	l.closeOnce.Do(func() {
		if l.sweepStop != nil {
			l.sweepStop()
		}
		l.mu.Lock()
		l.closed = true
		close(l.queue)
		l.mu.Unlock()
	})
	<-l.done
	return nil
}

// runItem is a record to write, or (ack set) a flush marker.
type runItem struct {
	rec RunRecord
	ack chan struct{}
}

// Flush waits until every record queued before the call is written.
func (l *RunLog) Flush() {
	if l == nil {
		return
	}
	ack := make(chan struct{})
	l.mu.RLock()
	if l.closed {
		l.mu.RUnlock()
		return
	}
	l.queue <- runItem{ack: ack}
	l.mu.RUnlock()
	<-ack
}

func (l *RunLog) work() {
	defer close(l.done)
	g := runGather{batch: make([]RunRecord, 0, runBatchSize), linger: l.linger}
	for it := range l.queue {
		g.fill(it, l.queue)
		if len(g.batch) > 0 {
			l.write(g.batch)
		}
		for _, a := range g.acks {
			close(a)
		}
	}
}

func (l *RunLog) write(batch []RunRecord) {
	if cap(l.costs) < len(batch) {
		l.costs = make([]float64, len(batch))
	}
	costs := l.costs[:len(batch)]
	for i := range batch {
		batch[i].CostUSD = nil
		if usd, ok := l.cost(batch[i]); ok {
			costs[i] = usd
			batch[i].CostUSD = &costs[i]
		}
	}
	opted := map[string]*RunContentSettings{}
	err := l.store.Update(context.Background(), func(tx Tx) error {
		for i := range batch {
			r := &batch[i]
			if err := l.putContent(tx, r, opted); err != nil {
				return err
			}
			n, err := putRun(tx, r, l.valueHint)
			if err != nil {
				return err
			}
			l.valueHint = min(max(l.valueHint, n), runValueHintMax)
		}
		if l.meter != nil {
			return l.meter.MeterTx(tx, batch)
		}
		return nil
	})
	if err != nil {
		l.log.Error("run records not written", "count", len(batch), "err", err)
		return
	}
	l.written.Add(int64(len(batch)))
	l.commits.Add(1)
}

// cost prices a run from the catalogue's list prices; false when the
// model has no listed price (or no registry is configured).
func (l *RunLog) cost(r RunRecord) (float64, bool) {
	if l.providers == nil {
		return 0, false
	}
	provider, model, _ := strings.Cut(r.Model, ":")
	if r.Kind == RunKindImage {
		return imageCost(l.providers, ModelRef{Provider: provider, Model: model}, r.Images)
	}
	ref := ModelRef{Provider: provider, Model: model}
	if r.CachedTokens <= 0 && r.CacheWriteTokens <= 0 {
		return l.providers.Cost(ref, r.PromptTokens, r.CompletionTokens)
	}
	return costOf(l.providers, ref, &Usage{PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens,
		PromptTokensDetails: &PromptTokensDetails{CachedTokens: r.CachedTokens},
		CacheCreationTokens: r.CacheWriteTokens, CacheCreation1hTokens: r.CacheWrite1hTokens})
}

// RunPage is one page of run records, newest first; Next is the cursor of
// the following page ("" on the last one).
type RunPage struct {
	Runs []*RunRecord
	Next string
}

// List returns an owner's run records, newest first; pipeID ("" for all)
// filters by pipe. limit is 1-500 (default 50).
func (l *RunLog) List(ctx context.Context, owner, pipeID string, limit int, cursor string) (*RunPage, error) {
	if limit <= 0 {
		limit = 50
	}
	if limit > 500 {
		limit = 500
	}
	prefix := prefixRun + owner + "/"
	if pipeID != "" {
		prefix = prefixRunPipe + owner + "/" + pipeID + "/"
	}
	after := ""
	if cursor != "" {
		after = prefix + cursor
	}
	page := &RunPage{Runs: []*RunRecord{}}
	last := ""
	err := l.store.View(ctx, func(tx Tx) error {
		return tx.Scan(prefix, after, func(k string, b []byte) error {
			if len(page.Runs) == limit {
				page.Next = last
				return ErrStopScan
			}
			id := strings.TrimPrefix(k, prefix)
			var r RunRecord
			if err := tx.Get(prefixRun+owner+"/"+id, &r); err != nil {
				if IsNotFound(err) {
					return nil
				}
				return err
			}
			r.Kind = RunKindOf(&r)
			page.Runs = append(page.Runs, &r)
			last = id
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return page, nil
}
