package server

import (
	"context"
	"errors"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// relayOutcome is how a relayed stream ended: the usage it reported, the
// time to its first chunk (0 when none came), its error (nil at the end
// of a complete stream) and whether the client got any of it.
type relayOutcome struct {
	usage *engine.Usage
	first time.Duration
	err   error
	// started reports whether anything was written to the client.
	started bool
}

// answer is the error the handler returns: one that came before anything
// was written and while the client was still there; nil otherwise (the
// stream already carried its error event).
func (o relayOutcome) answer() error {
	if o.err != nil && !o.started && !errors.Is(o.err, engine.ErrClientGone) {
		return o.err
	}
	return nil
}

// recordCompletion writes a provider-model call of
// /openai/v1/chat/completions to the run log, so GET /v1/runs and the
// studio's Usage page count it next to pipe runs: no pipe, the model that
// answered, tokens, latency, time to first token and the list-price cost.
// The run log is in the shared store, so every node of a cluster sees the
// records of the others.
func (s *Server) recordCompletion(ctx context.Context, owner string, start time.Time, ref engine.ModelRef, stream bool, out relayOutcome) {
	if s.deps.Runner == nil || s.deps.Runner.RunLog() == nil {
		return
	}
	rec := engine.RunRecord{
		ID: engine.NewRunID(ctx, start), Owner: owner, Model: ref.String(), Endpoint: openAIPrefix + "/chat/completions", Kind: engine.RunKindCompletion,
		Stream: stream, Status: engine.RunSuccess, LatencyMs: time.Since(start).Milliseconds(), CreatedAt: start.UTC(),
		KeyID: engine.KeyIDOf(ctx),
	}
	if out.usage != nil {
		rec.PromptTokens, rec.CompletionTokens, rec.TotalTokens = out.usage.PromptTokens, out.usage.CompletionTokens, out.usage.TotalTokens
	}
	if stream && out.first > 0 {
		ms := out.first.Milliseconds()
		rec.FirstTokenMs = &ms
	}
	if out.err != nil {
		rec.Status = engine.RunError
		if errors.Is(out.err, context.Canceled) || errors.Is(out.err, engine.ErrClientGone) {
			rec.Status = engine.RunCancelled
		}
		rec.Error = "internal error"
		var ee *engine.Error
		if errors.As(out.err, &ee) {
			rec.Error = ee.Message
		} else if errors.Is(out.err, context.DeadlineExceeded) {
			rec.Error = "timed out"
		}
	}
	s.deps.Runner.RunLog().Record(rec)
}
