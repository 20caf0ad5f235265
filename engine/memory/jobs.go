package memory

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// Job kinds.
const (
	// JobIngest parses, chunks, embeds and indexes one document version.
	JobIngest = "ingest"
	// JobPurge removes one document version's chunks, vectors, index
	// entries and (unless KeepBlob) its blob.
	JobPurge = "purge"
	// JobDrop removes everything left of a deleted memory.
	JobDrop = "drop"
)

// Job states. A job found running when the service opens was interrupted
// by a crash or a kill.
const (
	JobQueued  = "queued"
	JobRunning = "running"
)

// Job is a durable unit of background work, stored under job/<ID>. IDs
// start with the creation time in hex, so a scan visits jobs oldest first.
type Job struct {
	ID       string `json:"id"`
	Kind     string `json:"kind"`
	Owner    string `json:"owner"`
	Memory   string `json:"memory"`
	MemoryID string `json:"memory_id"`
	Document string `json:"document,omitempty"`
	Version  string `json:"version,omitempty"`
	Blob     string `json:"blob,omitempty"`
	KeepBlob bool   `json:"keep_blob,omitempty"`
	State    string `json:"state"`
	// Attempts counts the starts of the job that did not end cleanly. It
	// is stored when the job is claimed, before any work, so a start that
	// crashes the server is counted; a retry by the user is a new job.
	Attempts int `json:"attempts"`
	// Stage is the step an ingest job is in (StageParse, StageIndex),
	// stored before the step starts, so that a job the server died in
	// too often fails naming the step.
	Stage     string    `json:"stage,omitempty"`
	NotBefore time.Time `json:"not_before,omitzero"`
	CreatedAt time.Time `json:"created_at"`
	// Node is the node that claimed the job last (engine.Cluster.Node).
	Node string `json:"node,omitempty"`
	// Claim is the fencing token: it grows by one at every claim and
	// never goes down, and every write of the job's results checks in its
	// transaction that the job still carries the holder's Claim (see
	// lease.go).
	Claim int `json:"claim,omitempty"`
	// LeaseUntil is when the holder's lease ends; in cluster mode its
	// heartbeat extends it, and any node may take over a running job whose
	// lease has passed.
	LeaseUntil time.Time `json:"lease_until,omitzero"`
	// Trace is the W3C traceparent of the request that queued the job,
	// when it was traced: the job's span links to it (ingest_trace.go).
	Trace string `json:"trace,omitempty"`
	// started is when this process began the current attempt (metrics).
	started time.Time
	// exhausted is set on a job taken over from an expired lease after
	// MaxAttempts interrupted starts: it is given up instead of run.
	exhausted bool
	// takenFrom is the node whose passed lease this claim took over.
	takenFrom string
}

// Ingest job stages.
const (
	StageParse = "parse"
	StageIndex = "index"
)

const jobPrefix = "job/"

func jobKey(id string) string { return jobPrefix + id }

func (s *Service) newJob(kind string, m *Memory, doc string, v *Version) *Job {
	now := s.now().UTC()
	j := &Job{
		ID:   fmt.Sprintf("%016x-%s", now.UnixNano(), engine.RandomString(8)),
		Kind: kind, Owner: m.Owner, Memory: m.Name, MemoryID: m.ID, Document: doc,
		State: JobQueued, CreatedAt: now,
	}
	if v != nil {
		j.Version, j.Blob = v.ID, v.Blob
	}
	return j
}

func putJob(tx engine.Tx, j *Job) error { return tx.Put(jobKey(j.ID), j) }

// setStage stores the job's stage before the step starts.
func (s *Service) setStage(ctx context.Context, j *Job, stage string) error {
	if j.Stage == stage {
		return nil
	}
	return s.update(ctx, func(tx engine.Tx) error {
		var cur Job
		if err := tx.Get(jobKey(j.ID), &cur); err != nil {
			return err
		}
		cur.Stage = stage
		j.Stage = stage
		return putJob(tx, &cur)
	})
}

// requeue puts a job back in the queue (and tells the other nodes, which may
// run it). A clean stop (shutdown) does not count as an attempt.
func (s *Service) requeue(ctx context.Context, j *Job, countAttempt bool, notBefore time.Time) error {
	return s.update(ctx, func(tx engine.Tx) error {
		var cur Job
		if err := tx.Get(jobKey(j.ID), &cur); err != nil {
			if engine.IsNotFound(err) {
				return nil
			}
			return err
		}
		cur.State = JobQueued
		if !countAttempt && cur.Attempts > 0 {
			cur.Attempts--
		}
		cur.NotBefore, cur.LeaseUntil = notBefore, time.Time{}
		if err := putJob(tx, &cur); err != nil {
			return err
		}
		return s.cluster.Publish(tx, TopicJob, cur.ID)
	})
}

func (s *Service) deleteJob(ctx context.Context, id string) error {
	return s.update(ctx, func(tx engine.Tx) error { return tx.Delete(jobKey(id)) })
}

// JobCounts reports the queued and running jobs by kind (for tests and
// metrics).
func (s *Service) JobCounts(ctx context.Context) (map[string]int, error) {
	out := map[string]int{}
	err := s.store.View(ctx, func(tx engine.Tx) error {
		return engine.ScanJSON(tx, jobPrefix, func(j *Job) error {
			out[j.Kind+"/"+j.State]++
			return nil
		})
	})
	return out, err
}

// QueueDepth counts the background jobs waiting and running, for the
// metrics gauge read at scrape time (0, 0 when the store does not answer
// within a second).
func (s *Service) QueueDepth() (queued, running int) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	counts, err := s.JobCounts(ctx)
	if err != nil {
		return 0, 0
	}
	for k, n := range counts {
		switch {
		case strings.HasSuffix(k, "/"+JobQueued):
			queued += n
		case strings.HasSuffix(k, "/"+JobRunning):
			running += n
		}
	}
	return queued, running
}
