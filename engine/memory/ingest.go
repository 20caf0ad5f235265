package memory

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// ingester runs the durable job queue with a bounded pool of workers. The
// queue lives in the store; the dispatcher scans it oldest first and hands
// due jobs to idle workers, and new jobs wake it at once.
type ingester struct {
	s     *Service
	wake  chan struct{}
	ready chan struct{} // a worker is idle
	work  chan *Job

	mu     sync.Mutex
	busy   map[string]bool // jobs handed out and not finished
	opened bool
	closed bool
	halted bool // stopped like a crash: interrupted jobs stay running
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newIngester(s *Service) *ingester {
	return &ingester{s: s, wake: make(chan struct{}, 1), ready: make(chan struct{}), work: make(chan *Job), busy: map[string]bool{}}
}

// Open recovers jobs interrupted by a crash (embedded mode; in cluster mode
// the workers take over expired leases instead), clears expired uploads
// and orphaned upload bytes (unless another node is doing it), and starts
// the workers.
func (s *Service) Open(ctx context.Context) error {
	in := s.ingest
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.opened {
		return errors.New("memory: already open")
	}
	if err := s.recoverJobs(ctx); err != nil {
		return fmt.Errorf("memory: recover jobs: %w", err)
	}
	swept := s.now()
	if _, err := s.sweep(ctx); err != nil {
		return fmt.Errorf("memory: sweep expired and orphaned uploads: %w", err)
	}
	if s.shared() {
		s.cluster.Subscribe(TopicJob, func(string) { in.poke() })
		s.cluster.Subscribe(TopicDocs, func(memID string) {
			if memID == "" {
				s.docsets.invalidateAll()
				return
			}
			s.docsets.invalidate(memID)
		})
		s.followMemories()
	}
	runCtx, cancel := context.WithCancel(context.Background())
	in.cancel = cancel
	in.opened = true
	in.wg.Add(2 + s.cfg.Workers)
	go func() {
		defer in.wg.Done()
		s.dropLegacyVectors(runCtx)
	}()
	go in.dispatch(runCtx, swept)
	for i := 0; i < s.cfg.Workers; i++ {
		go in.worker(runCtx)
	}
	return nil
}

// Close stops the workers: jobs in progress are interrupted and put back in
// the queue without counting an attempt, so they resume on the next Open.
// Close returns when every worker has stopped; call it before closing the
// store and the index.
func (s *Service) Close() error { return s.stop(false) }

// Halt stops the workers as a crash would: jobs in progress stay marked
// running in the store, and the next Open must recover them. It exists for
// crash-recovery tests; servers use Close.
func (s *Service) Halt() error { return s.stop(true) }

func (s *Service) stop(halt bool) error {
	in := s.ingest
	in.mu.Lock()
	if !in.opened || in.closed {
		in.closed = true
		in.mu.Unlock()
		return nil
	}
	in.closed, in.halted = true, halt
	in.cancel()
	in.mu.Unlock()
	in.wg.Wait()
	return nil
}

func (in *ingester) isHalted() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.halted
}

// recoverJobs re-queues the jobs a crash left running, and gives up on
// those interrupted too often: their document fails with a message saying
// so (its partial chunks stay until it is retried, replaced or deleted).
//
// In cluster mode a running job may belong to a live node: nothing is done
// here, and the workers take over the jobs whose lease has passed.
func (s *Service) recoverJobs(ctx context.Context) error {
	if s.shared() {
		return nil
	}
	var running []*Job
	err := s.store.View(ctx, func(tx engine.Tx) error {
		return engine.ScanJSON(tx, jobPrefix, func(j *Job) error {
			if j.State == JobRunning {
				running = append(running, j)
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	for _, j := range running {
		if j.Attempts < s.cfg.MaxAttempts {
			s.log.Warn("resuming interrupted job", "job", j.ID, "kind", j.Kind, "memory", j.Memory, "document", j.Document, "attempt", j.Attempts+1)
			if err := s.requeue(ctx, j, true, time.Time{}); err != nil {
				return err
			}
			s.jobOutcome(j, "requeued")
			continue
		}
		if err := s.giveUp(ctx, j); err != nil {
			return err
		}
	}
	return nil
}

// giveUp ends a job interrupted MaxAttempts times: an ingest job fails its
// document with a message naming the step, other jobs are dropped.
func (s *Service) giveUp(ctx context.Context, j *Job) error {
	s.log.Error("giving up on job interrupted too often", "job", j.ID, "kind", j.Kind, "memory", j.Memory, "document", j.Document, "attempts", j.Attempts)
	if j.Kind == JobCrawl {
		return s.failCrawl(ctx, j, fmt.Sprintf("the crawl was interrupted %d times (the server stopped or crashed while crawling); start it again", j.Attempts))
	}
	if j.Kind != JobIngest {
		return s.deleteJob(ctx, j.ID)
	}
	msg := fmt.Sprintf("processing was interrupted %d times (the server stopped or crashed while working on this document); retry to try again", j.Attempts)
	if j.Stage == StageParse {
		msg = fmt.Sprintf("processing was interrupted %d times while parsing (the server stopped or crashed reading this file, which may be malformed or expand to too much text); retry to try again", j.Attempts)
	}
	return s.failIngest(ctx, j, msg)
}

// poke wakes the dispatcher.
func (in *ingester) poke() {
	select {
	case in.wake <- struct{}{}:
	default:
	}
}

func (in *ingester) take(id string) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.busy[id] {
		return false
	}
	in.busy[id] = true
	return true
}

func (in *ingester) release(id string) {
	in.mu.Lock()
	delete(in.busy, id)
	in.mu.Unlock()
	in.poke()
}

// dispatch hands due jobs to idle workers and sweeps hourly, counting
// from lastSweep, the time of Open's sweep (not from when this goroutine
// first runs, which may be later).
func (in *ingester) dispatch(ctx context.Context, lastSweep time.Time) {
	defer in.wg.Done()
	s := in.s
	idle := 0 // workers waiting for a job
	for {
		// Take jobs only for idle workers: a job taken from the queue is
		// busy, and a delete request waiting to run its purge inline must
		// not wait behind other work.
		for idle == 0 {
			select {
			case <-in.ready:
				idle++
			case <-ctx.Done():
				return
			}
		}
		for more := true; more; {
			select {
			case <-in.ready:
				idle++
			default:
				more = false
			}
		}
		jobs, next, err := in.due(ctx, idle)
		if err != nil && ctx.Err() == nil {
			s.log.Error("cannot read the job queue", "err", err)
		}
		for i, j := range jobs {
			select {
			case in.work <- j: // an idle worker is waiting for it
				idle--
			case <-ctx.Done():
				for _, k := range jobs[i:] {
					in.release(k.ID)
				}
				return
			}
		}
		if len(jobs) > 0 {
			continue
		}
		if s.now().Sub(lastSweep) > time.Hour {
			lastSweep = s.now()
			if _, err := s.sweep(ctx); err != nil && ctx.Err() == nil {
				s.log.Error("cannot sweep expired and orphaned uploads", "err", err)
			}
		}
		wait := s.cfg.IdleWait
		if !next.IsZero() {
			wait = min(wait, max(next.Sub(s.now()), time.Millisecond))
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-in.wake:
		case <-in.ready:
			idle++
		case <-t.C:
		}
		t.Stop()
	}
}

// due returns up to n claimable jobs (queued, or in cluster mode running
// under a passed lease) that are due and not handed out, marking them busy,
// and the time the next delayed job or, in cluster mode, lease becomes due.
func (in *ingester) due(ctx context.Context, n int) ([]*Job, time.Time, error) {
	var out []*Job
	var next time.Time
	s := in.s
	now := s.now()
	later := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	err := s.store.View(ctx, func(tx engine.Tx) error {
		return engine.ScanJSON(tx, jobPrefix, func(j *Job) error {
			if !s.claimable(j, now) {
				if j.State == JobRunning && s.shared() {
					later(j.LeaseUntil)
				}
				return nil
			}
			if j.State == JobQueued && j.NotBefore.After(now) {
				later(j.NotBefore)
				return nil
			}
			if in.take(j.ID) {
				out = append(out, j)
			}
			if len(out) >= n {
				return engine.ErrStopScan
			}
			return nil
		})
	})
	return out, next, err
}

func (in *ingester) worker(ctx context.Context) {
	defer in.wg.Done()
	for {
		select {
		case in.ready <- struct{}{}:
		case <-ctx.Done():
			return
		}
		select {
		case <-ctx.Done():
			return
		case j := <-in.work:
			in.run(ctx, j.ID)
			in.release(j.ID)
		}
	}
}

// runInline runs a job (a purge or drop queued by a delete request) in the
// caller's goroutine, so the caller sees its effect; a failure leaves it
// queued for the workers. It is detached from the caller's cancellation.
func (in *ingester) runInline(ctx context.Context, j *Job) {
	for !in.take(j.ID) {
		// A worker has it: wait for it to finish, so the caller still sees
		// the effect when it returns.
		if ctx.Err() != nil {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	in.run(context.WithoutCancel(ctx), j.ID)
	in.release(j.ID)
}

// run claims and executes one job. On success the job is gone; when the
// context ends (shutdown) it goes back to the queue without counting an
// attempt; on other failures it is retried later, up to MaxAttempts.
func (in *ingester) run(ctx context.Context, id string) {
	s := in.s
	j, ok, err := s.claim(ctx, id)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Error("cannot claim job", "job", id, "err", err)
		}
		return
	}
	if !ok {
		return
	}
	if j.takenFrom != "" {
		s.log.Warn("taking over a job whose lease passed", "job", j.ID, "kind", j.Kind, "memory", j.Memory, "document", j.Document, "from", j.takenFrom, "attempt", j.Attempts)
	}
	runCtx := ctx
	ctx = s.fence(ctx, j)
	if j.exhausted {
		if err := s.giveUp(ctx, j); err != nil && !errors.Is(err, errLeaseLost) {
			s.log.Error("cannot give up on job", "job", j.ID, "err", err)
		}
		return
	}
	var cancel context.CancelCauseFunc
	ctx, cancel = context.WithCancelCause(ctx)
	beating := make(chan struct{})
	if s.shared() {
		go func() {
			defer close(beating)
			s.heartbeat(ctx, j, cancel)
		}()
	} else {
		close(beating)
	}
	defer func() {
		cancel(nil)
		<-beating // no renewal outlives the run
	}()
	start := s.now()
	j.started = start
	err = in.exec(ctx, j)
	switch {
	case errors.Is(err, errLeaseLost) || errors.Is(context.Cause(ctx), errLeaseLost):
		s.log.Warn("job taken over by another node; abandoning this attempt", "job", j.ID, "kind", j.Kind, "memory", j.Memory, "document", j.Document, "claim", j.Claim)
		return
	case err == nil:
		s.log.Debug("job done", "job", j.ID, "kind", j.Kind, "memory", j.Memory, "document", j.Document, "took", s.now().Sub(start))
		return
	case runCtx.Err() != nil:
		if in.isHalted() {
			return
		}
		// Shutting down: put it back for the next start, still fenced
		// (the run context is gone, its values stay).
		if err := s.requeue(context.WithoutCancel(ctx), j, false, time.Time{}); err != nil {
			s.log.Error("cannot requeue interrupted job", "job", j.ID, "err", err)
		}
		s.jobOutcome(j, "requeued")
		return
	}
	s.log.Error("job failed", "job", j.ID, "kind", j.Kind, "memory", j.Memory, "document", j.Document, "attempt", j.Attempts, "err", err)
	if j.Attempts >= s.cfg.MaxAttempts {
		if j.Kind == JobIngest {
			err = s.failIngest(ctx, j, "processing failed: "+errMessage(err))
		} else if j.Kind == JobCrawl {
			err = s.failCrawl(ctx, j, "the crawl failed: "+errMessage(err))
		} else {
			err = s.deleteJob(ctx, j.ID)
		}
		if err != nil {
			s.log.Error("cannot give up on job", "job", j.ID, "err", err)
		}
		return
	}
	delay := s.cfg.RetryBaseDelay << (j.Attempts - 1)
	if err := s.requeue(ctx, j, true, s.now().Add(min(delay, s.cfg.RetryMaxDelay))); err != nil {
		s.log.Error("cannot requeue failed job", "job", j.ID, "err", err)
	}
	s.jobOutcome(j, "requeued")
}

// exec runs a claimed job, turning a panic into an error.
func (in *ingester) exec(ctx context.Context, j *Job) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &engine.Error{Code: engine.CodeInternal, Message: "internal error", Err: fmt.Errorf("panic: %v\n%s", r, debug.Stack())}
		}
	}()
	s := in.s
	switch j.Kind {
	case JobIngest:
		return s.tracedIngest(ctx, j)
	case JobCrawl:
		return s.runCrawl(ctx, j)
	case JobPurge:
		if err := s.purgeVersion(ctx, j.MemoryID, j.Version, j.Blob, j.KeepBlob); err != nil {
			return err
		}
	case JobDrop:
		if err := s.dropMemory(ctx, j.Owner, j.MemoryID); err != nil {
			return err
		}
	default:
		s.log.Error("dropping job of unknown kind", "job", j.ID, "kind", j.Kind)
	}
	return s.deleteJob(ctx, j.ID)
}

// jobOutcome reports the end of an ingestion attempt to the metrics.
func (s *Service) jobOutcome(j *Job, outcome string) {
	if j.Kind != JobIngest {
		return
	}
	var d time.Duration
	if !j.started.IsZero() {
		d = s.now().Sub(j.started)
	}
	s.metrics.IngestionJob(outcome, d)
}
