package memory

import (
	"context"
	"errors"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// Job leases. A worker claims a job in one transaction that marks it
// running, records the node (Job.Node), bumps the fencing token (Job.Claim)
// and sets a lease deadline (Job.LeaseUntil). Every later write of the job
// (chunk records, vectors through the index, the document's status, the
// job's end) runs, in its own transaction, the check that the job is still
// running under the same Claim; a holder that lost the job (another node
// took it over after its lease passed) fails its writes and abandons the
// job. Chunk ids are deterministic (version and position), so the new
// holder rewrites the same keys and the end state has every chunk once.
//
// Embedded (engine.Local): the process owns the store, so leases are
// written but nobody reads them; a job found running at Open was
// interrupted and is queued again. Cluster mode (Cluster.Shared): a job
// found running at Open may belong to a live node; only a passed lease
// means its holder is gone. Each node's dispatcher takes queued jobs and
// expired leases from the store; claims race in a transaction (SERIALIZABLE
// on PostgreSQL), so exactly one node wins a job. Nodes wake on the "job"
// topic, published when a job is queued, and rescan every IdleWait, the
// fallback for missed notifications and passed leases.

// TopicJob is the engine.Cluster topic published when a job is queued; the
// key is the job id.
const TopicJob = "job"

// sweepLock is the cluster lock held by the node that sweeps expired
// uploads and orphaned blobs: one node at a time does it.
const sweepLock = "memory.sweep"

// errLeaseLost says another node took the job over: this holder must
// abandon it without writing anything more.
var errLeaseLost = errors.New("the job's lease was taken over by another node")

func (s *Service) shared() bool { return s.cluster.Shared() }

// update runs fn in an Update after the write check that ctx carries (the
// lease of the job this write belongs to, see fence).
func (s *Service) update(ctx context.Context, fn func(tx engine.Tx) error) error {
	return s.store.Update(ctx, func(tx engine.Tx) error {
		if err := engine.CheckWrite(ctx, tx); err != nil {
			return err
		}
		return fn(tx)
	})
}

// fence returns ctx carrying the check that j is still held under its
// Claim; the memory engine's writes and the index's vector writes run it.
func (s *Service) fence(ctx context.Context, j *Job) context.Context {
	claim := j.Claim
	return engine.WithWriteCheck(ctx, func(tx engine.Tx) error {
		var cur Job
		if err := tx.Get(jobKey(j.ID), &cur); err != nil {
			if engine.IsNotFound(err) {
				return errLeaseLost
			}
			return err
		}
		if cur.State != JobRunning || cur.Claim != claim {
			return errLeaseLost
		}
		return nil
	})
}

// enqueue stores a new job for the workers and tells the other nodes.
func (s *Service) enqueue(tx engine.Tx, j *Job) error {
	if err := putJob(tx, j); err != nil {
		return err
	}
	return s.cluster.Publish(tx, TopicJob, j.ID)
}

// claimable reports whether a worker may claim j now: it is queued, or, in
// cluster mode, running under a lease that has passed.
func (s *Service) claimable(j *Job, now time.Time) bool {
	switch j.State {
	case JobQueued:
		return true
	case JobRunning:
		return s.shared() && !j.LeaseUntil.After(now)
	}
	return false
}

// claim takes a job: it marks it running under this node's lease, counts
// the attempt and bumps the fencing token. ok is false when the job is gone
// or held by another live lease. A job taken over from a passed lease
// counts that holder's start as an interrupted attempt (it was counted
// when it claimed); one interrupted MaxAttempts times comes back with
// exhausted set, to be given up.
func (s *Service) claim(ctx context.Context, id string) (*Job, bool, error) {
	var j Job
	ok := false
	err := s.store.Update(ctx, func(tx engine.Tx) error {
		ok, j = false, Job{}
		if err := tx.Get(jobKey(id), &j); err != nil {
			if engine.IsNotFound(err) {
				return nil
			}
			return err
		}
		now := s.now()
		if !s.claimable(&j, now) {
			return nil
		}
		if j.State == JobRunning {
			j.takenFrom = j.Node
		}
		if j.State == JobRunning && j.Attempts >= s.cfg.MaxAttempts {
			j.exhausted = true
		} else {
			j.Attempts++
		}
		j.State = JobRunning
		j.Claim++
		j.Node = s.cluster.Node()
		j.LeaseUntil = now.Add(s.cfg.LeaseTTL)
		ok = true
		return putJob(tx, &j)
	})
	return &j, ok, err
}

// renew extends j's lease; errLeaseLost when another node holds it now.
func (s *Service) renew(ctx context.Context, j *Job) error {
	return s.update(s.fence(ctx, j), func(tx engine.Tx) error {
		var cur Job
		if err := tx.Get(jobKey(j.ID), &cur); err != nil {
			return err
		}
		cur.LeaseUntil = s.now().Add(s.cfg.LeaseTTL)
		return putJob(tx, &cur)
	})
}

// heartbeat renews j's lease every third of LeaseTTL until ctx ends. When
// the lease is lost, or cannot be renewed before it passes, it cancels the
// job with errLeaseLost. Only cluster mode runs it.
func (s *Service) heartbeat(ctx context.Context, j *Job, cancel context.CancelCauseFunc) {
	t := time.NewTicker(s.cfg.LeaseTTL / 3)
	defer t.Stop()
	deadline := j.LeaseUntil
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		err := s.renew(ctx, j)
		switch {
		case err == nil:
			deadline = s.now().Add(s.cfg.LeaseTTL)
		case ctx.Err() != nil:
			return
		case errors.Is(err, errLeaseLost) || !s.now().Before(deadline):
			s.log.Warn("lost the lease of a job; abandoning it", "job", j.ID, "kind", j.Kind, "memory", j.Memory, "document", j.Document, "err", err)
			cancel(errLeaseLost)
			return
		default:
			s.log.Error("cannot renew the lease of a job", "job", j.ID, "err", err)
		}
	}
}

// sweep removes expired uploads and orphaned blobs under the cluster lock
// sweepLock, so that one node at a time does it; ran is false when another
// node holds the lock (the round is skipped).
func (s *Service) sweep(ctx context.Context) (ran bool, err error) {
	release, ok, err := s.cluster.TryLock(ctx, sweepLock)
	if err != nil || !ok {
		return false, err
	}
	defer release()
	if err := s.sweepUploads(ctx); err != nil {
		return true, err
	}
	_, err = s.sweepBlobs(ctx)
	return true, err
}
