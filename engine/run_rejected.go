package engine

import (
	"context"
	"errors"
)

// recordRejected records a run that was accepted (its pipe found, the key
// allowed to run it, the request well formed) and failed before the model
// was called: an unknown thread or memory, no provider key, flagged input,
// a thread without room. Usage then counts it as an error. A run whose
// client went away first is recorded as cancelled. The record goes through
// the same run log as every run, so it is in the shared store for every
// node of a cluster.
func (pr *PreparedRun) recordRejected(err error) {
	if pr.Ref.Provider == "" {
		if ref, perr := ParseModelID("model", pr.Pipe.Model); perr == nil {
			pr.Ref = ref
		}
	}
	status := RunError
	if errors.Is(err, context.Canceled) || errors.Is(err, ErrClientGone) {
		status = RunCancelled
	}
	pr.once.Do(func() { pr.record(runResult{err: err}, status, nil) })
}
