package engine

import "time"

// NewRunLogLinger is NewRunLog with the writer's linger window set to d,
// for tests that need a batch to stay open.
func NewRunLogLinger(store Store, d time.Duration) *RunLog { return newRunLog(store, nil, nil, d) }

// RunLogQueued is how many records wait in l's queue.
func RunLogQueued(l *RunLog) int { return len(l.queue) }
