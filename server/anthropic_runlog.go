package server

import (
	"context"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// recordMessages writes a provider-model call of /anthropic/v1/messages
// to the run log, as recordCompletion does for chat completions.
func (s *Server) recordMessages(ctx context.Context, owner string, start time.Time, model string, stream bool, out relayOutcome) {
	if s.deps.Runner == nil || s.deps.Runner.RunLog() == nil {
		return
	}
	rec := completionRecord(ctx, owner, start, model, stream, out)
	rec.Endpoint = anthropicPrefix + "/messages"
	s.deps.Runner.RunLog().Record(rec)
}

// recordMessagesAnswered records a non-streamed call that answered resp,
// offering its text to the run log as recordAnswered does.
func (s *Server) recordMessagesAnswered(ctx context.Context, owner string, start time.Time, model string, chat *engine.ChatRequest, resp *engine.ChatResponse, secrets ...string) {
	if s.deps.Runner == nil || s.deps.Runner.RunLog() == nil {
		return
	}
	rec := completionRecord(ctx, owner, start, model, false, relayOutcome{usage: &resp.Usage})
	rec.Endpoint = anthropicPrefix + "/messages"
	var calls []engine.ToolCall
	if len(resp.Choices) > 0 {
		calls = resp.Choices[0].Message.ToolCalls
	}
	rec.WithContent(chat.Messages, engine.Completion(resp), calls, false, append(secrets, chat.APIKey)...)
	s.deps.Runner.RunLog().Record(rec)
}
