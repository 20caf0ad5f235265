package agent

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/guard"
)

// runRecorder writes one agent run to the run log (docs/pipes-and-threads.md#run-log):
// kind "agent", the model that answered, tokens summed over every step,
// latency, time to first token when streamed, the error, and every MCP
// tool call made (name, server, duration, error). The record goes through
// RunLog.Record, off the request path, to the shared store: every node of
// a cluster lists the runs of the others. Nothing of it stays in memory
// once the run ends.
type runRecorder struct {
	log     *engine.RunLog
	owner   string
	keyID   string // the run's API key, so per-key budgets count agent runs
	id      string
	start   time.Time
	created time.Time
	stream  bool
	// requested is the model id the request named (engine.ModelIDOf).
	requested string
	once      sync.Once

	mu    sync.Mutex
	calls []engine.RunToolCall
	// content holds the record's content (RunRecord.WithContentIn), and
	// idBuf holds the run id's bytes (engine.NewRunIDIn).
	content engine.RunContentSlot
	idBuf   engine.RunIDBuf
	// note names the deployment that served the run (nil: no deployments).
	note *engine.DeploymentNote
	// guard is the request's guardrail report (engine.WithGuardReport).
	guard *guard.Report
	// cache is the request's response cache ticket (nil without one).
	cache *engine.CacheTicket
}

// recorder sets up r (the run's own, kept with it) as the recorder of a
// run and returns it, or returns nil when runs are not logged.
func (a *Agent) recorder(ctx context.Context, r *runRecorder, owner, model string, stream bool) *runRecorder {
	if a.runs == nil {
		return nil
	}
	start := time.Now()
	created := engine.NowFrom(ctx, func() time.Time { return start })
	r.log, r.owner, r.keyID, r.id = a.runs, owner, engine.KeyIDOf(ctx), engine.NewRunIDIn(ctx, created, &r.idBuf)
	r.start, r.created, r.stream, r.requested = start, created, stream, model
	r.note = engine.DeploymentNoteOf(ctx)
	r.guard = engine.GuardReportOf(ctx)
	r.cache = engine.CacheTicketFrom(ctx)
	return r
}

// toolCall notes one MCP tool call; safe for concurrent calls.
func (r *runRecorder) toolCall(server, name string, d time.Duration, errMsg string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.calls = append(r.calls, engine.RunToolCall{Name: name, Server: server, DurationMs: d.Milliseconds(), Error: errMsg})
	r.mu.Unlock()
}

// runOutcome is how an agent run ended.
type runOutcome struct {
	ref        engine.ModelRef
	usage      *engine.Usage
	err        error
	first      time.Duration
	messages   []engine.Message
	completion string
	toolCalls  []engine.ToolCall
	secrets    []string
}

// finish records the run once; later calls do nothing.
func (r *runRecorder) finish(o runOutcome) {
	if r == nil {
		return
	}
	r.once.Do(func() {
		rec := engine.RunRecord{ID: r.id, Owner: r.owner, Model: engine.ModelIDOf(o.ref, r.requested), Endpoint: "/v1/agent/run", Kind: engine.RunKindAgent,
			Deployment: r.note.Name(), KeyID: r.keyID, Stream: r.stream, Status: engine.RunSuccess, LatencyMs: time.Since(r.start).Milliseconds(), CreatedAt: r.created.UTC(),
			Cache: r.cache.Outcome()}
		if o.usage != nil {
			rec.PromptTokens, rec.CompletionTokens, rec.TotalTokens = o.usage.PromptTokens, o.usage.CompletionTokens, o.usage.TotalTokens
			rec.CachedTokens = o.usage.CachedTokens()
		}
		if r.stream && o.first > 0 {
			ms := o.first.Milliseconds()
			rec.FirstTokenMs = &ms
		}
		r.mu.Lock()
		rec.ToolCalls = r.calls
		r.mu.Unlock()
		if o.err != nil {
			rec.Status = engine.RunError
			if errors.Is(o.err, context.Canceled) || errors.Is(o.err, engine.ErrClientGone) {
				rec.Status = engine.RunCancelled
			}
			rec.Error = publicMessage(o.err)
		}
		if o.messages != nil {
			rec.WithContentIn(&r.content, o.messages, o.completion, o.toolCalls, false, o.secrets...)
		}
		rec.Guard = r.guard.Events()
		r.log.Record(rec)
	})
}

// publicMessage is an error's caller-safe message.
func publicMessage(err error) string {
	var e *engine.Error
	if errors.As(err, &e) {
		return e.Message
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out"
	}
	return "internal error"
}

// runStart is when a run began, for its time to first token.
func runStart(run *agentRun) time.Time {
	if run.rec != nil {
		return run.rec.start
	}
	return time.Now()
}
