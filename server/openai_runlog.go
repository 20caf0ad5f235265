package server

import (
	"context"
	"errors"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
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
	s.deps.Runner.RunLog().Record(completionRecord(ctx, owner, start, ref.String(), stream, out))
}

// recordAnswered records a non-streamed provider-model call that answered
// resp, offering its text (the messages sent and the completion) to the
// run log, which keeps it when the owner opted in (docs/pipes-and-threads.md#run-log); the
// provider key of the call is redacted from it.
func (s *Server) recordAnswered(ctx context.Context, owner string, start time.Time, model string, chat *engine.ChatRequest, resp *engine.ChatResponse, secrets ...string) {
	if s.deps.Runner == nil || s.deps.Runner.RunLog() == nil {
		return
	}
	rec := completionRecord(ctx, owner, start, model, false, relayOutcome{usage: &resp.Usage})
	var calls []engine.ToolCall
	if len(resp.Choices) > 0 {
		calls = resp.Choices[0].Message.ToolCalls
	}
	rec.WithContent(chat.Messages, engine.Completion(resp), calls, false, append(secrets, chat.APIKey)...)
	s.deps.Runner.RunLog().Record(rec)
}

// completionRecord is the run record of a provider-model call.
func completionRecord(ctx context.Context, owner string, start time.Time, model string, stream bool, out relayOutcome) engine.RunRecord {
	rec := engine.RunRecord{
		ID: engine.NewRunID(ctx, start), Owner: owner, Model: model, Endpoint: openAIPrefix + "/chat/completions", Kind: engine.RunKindCompletion,
		Stream: stream, Status: engine.RunSuccess, LatencyMs: time.Since(start).Milliseconds(), CreatedAt: start.UTC(),
		KeyID: engine.KeyIDOf(ctx), Deployment: engine.DeploymentOf(ctx),
		Guard: engine.GuardReportOf(ctx).Events(), Cache: engine.CacheOutcomeOf(ctx),
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
	return rec
}

// noteDeployment gives the request a context that records the deployment
// serving its model call (engine.DeploymentOf), when the server has
// deployments; otherwise the request is left as it is.
func (s *Server) noteDeployment(c echo.Context) {
	if s.deps.Deployments == nil {
		return
	}
	ctx, _ := engine.WithDeploymentNote(c.Request().Context())
	c.SetRequest(c.Request().WithContext(ctx))
}
