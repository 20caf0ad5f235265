package server

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/agent"
	"github.com/labstack/echo/v4"
)

// handleOpenAIChat serves POST /openai/v1/chat/completions. A provider
// model runs as one completion (with the LB-Fallback-Models header's
// fallbacks); a pipe: model runs that pipe through the same run code as
// /v1/pipes/run, with the request's messages as the new turn.
func (s *Server) handleOpenAIChat(c echo.Context) error {
	var b agent.CompletionRequest
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	target, err := engine.ParseModelTarget("model", b.Model)
	if err != nil {
		return err
	}
	if _, err := s.useCache(c, principal(c).Owner, "cache", b.Cache); err != nil {
		return err
	}
	chat, err := b.Validate()
	if err != nil {
		return err
	}
	fallbacks, err := s.fallbackHeader(c)
	if err != nil {
		return err
	}
	includeUsage := b.StreamOptions != nil && b.StreamOptions.IncludeUsage
	if target.Pipe != "" {
		return s.openAIPipeRun(c, target, chat, fallbacks, b.Stream, includeUsage)
	}
	who := principal(c)
	if !who.IsOwnerKey() {
		return engine.Errorf(engine.CodeForbidden, "a pipe key runs its own pipe only: use the model pipe:<name> (or a user or org key for provider models)")
	}
	if s.deps.Providers == nil {
		return engine.Errorf(engine.CodeUnavailable, "no model providers are configured on this server")
	}
	if err := s.checkBudget(c, who.Owner); err != nil {
		return err
	}
	s.noteDeployment(c)
	start := time.Now()
	ctx := s.guardContext(c)
	res, err := s.deps.Agent.Complete(ctx, who.Owner, llmKey(c.Request().Header), target.Ref, fallbacks, chat, b.Stream)
	if err != nil {
		// A request the model never saw because a field of it is wrong
		// (an unknown provider, a tool_choice naming no tool) is not a
		// run; a missing key or a failed upstream call is.
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Field == "" {
			s.recordCompletion(ctx, who.Owner, start, target.Ref, b.Stream, relayOutcome{err: err})
		}
		return err
	}
	model := engine.ModelIDOf(res.Model, b.Model)
	setHeader(c.Response().Header(), HeaderModel, model)
	if res.Stream != nil {
		out := s.openAIRelay(c, res.Stream, includeUsage)
		s.recordCompletion(ctx, who.Owner, start, res.Model, true, out)
		return out.answer()
	}
	s.recordAnswered(ctx, who.Owner, start, model, chat, res.Response, llmKey(c.Request().Header))
	return answerJSON(c, http.StatusOK, res.Response)
}

// openAIPipeRun runs a pipe for the OpenAI surface. The pipe's prompt,
// variables, memories, tools and thread storage apply; sampling fields
// the request sets (temperature, max_tokens, response_format, ...)
// override the pipe's for this run. LB-Thread-ID continues a thread.
func (s *Server) openAIPipeRun(c echo.Context, t engine.ModelTarget, chat *engine.ChatRequest, fallbacks []engine.ModelRef, stream, includeUsage bool) error {
	ctx := c.Request().Context()
	who, err := s.pipeRunner(ctx, principal(c), t)
	if err != nil {
		return err
	}
	pr, err := s.deps.Runner.Prepare(ctx, &engine.RunRequest{
		Principal: who, Name: t.Pipe, Messages: chat.Messages, ThreadID: c.Request().Header.Get(headerThreadRequest),
		Tools: chat.Tools, LLMKey: llmKey(c.Request().Header), FallbackModels: fallbacks,
		Endpoint: openAIPrefix + "/chat/completions", Stream: stream, Admit: s.admitPipe(c, nil),
	})
	if err != nil {
		if engine.IsNotFound(err) {
			id := t.Pipe
			if who.Owner != principal(c).Owner {
				id = who.Owner + "/" + t.Pipe
			}
			return &engine.Error{Code: engine.CodeNotFound, Field: "model", Message: "model: pipe:" + id + " not found", Err: err}
		}
		return err
	}
	overrideSampling(pr.Request, chat)
	if !stream {
		resp, err := pr.Complete(ctx)
		setRunHeaders(c.Response().Header(), pr.ThreadID, pr.ModelID())
		if err != nil {
			return err
		}
		return answerJSON(c, http.StatusOK, resp)
	}
	setThreadHeader(c, pr.ThreadID)
	rs, err := pr.Stream(ctx)
	setHeader(c.Response().Header(), HeaderModel, pr.ModelID())
	if err != nil {
		return err
	}
	return s.openAIRelay(c, rs, includeUsage).answer()
}

// overrideSampling applies the request's own sampling fields to a pipe run.
func overrideSampling(req, in *engine.ChatRequest) {
	if in.Temperature != nil {
		req.Temperature = in.Temperature
	}
	if in.TopP != nil {
		req.TopP = in.TopP
	}
	if in.MaxTokens != nil {
		req.MaxTokens = in.MaxTokens
	}
	if in.PresencePenalty != nil {
		req.PresencePenalty = in.PresencePenalty
	}
	if in.FrequencyPenalty != nil {
		req.FrequencyPenalty = in.FrequencyPenalty
	}
	if len(in.Stop) > 0 {
		req.Stop = in.Stop
	}
	if in.ResponseFormat != nil {
		req.ResponseFormat = in.ResponseFormat
	}
	if in.ToolChoice != nil && len(req.Tools) > 0 {
		req.ToolChoice = in.ToolChoice
	}
	if in.ParallelToolCalls != nil && len(req.Tools) > 0 {
		req.ParallelToolCalls = in.ParallelToolCalls
	}
	if in.ReasoningEffort != "" {
		req.ReasoningEffort = in.ReasoningEffort
	}
	for k, v := range in.Extra {
		if req.Extra == nil {
			req.Extra = map[string]json.RawMessage{}
		}
		req.Extra[k] = v
	}
}

// openAIRelay streams chunks as OpenAI does: usage only in one last chunk
// with empty choices, and only when stream_options.include_usage is set
// (https://platform.openai.com/docs/api-reference/chat/create#chat-create-stream_options);
// an error after the first chunk is an {"error":{...}} event. The
// outcome says how the stream ended; when it failed before anything was
// written (started false), the caller answers out.err as a plain error.
func (s *Server) openAIRelay(c echo.Context, rs chunkStream, includeUsage bool) (out relayOutcome) {
	ctx := c.Request().Context()
	w := newSSEWriter(c)
	start := time.Now()
	var last *engine.ChatChunk
	defer func() { out.started = w.Started() }()
	for {
		if err := w.flushUnlessReady(rs); err != nil {
			out.err = errors.Join(engine.ErrClientGone, err)
			rs.Close(out.err)
			return out
		}
		chunk, err := rs.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			rs.Close(err)
			out.err = err
			if ctx.Err() != nil {
				out.err = errors.Join(engine.ErrClientGone, err)
				return out
			}
			if w.Started() {
				s.openAIStreamError(c, w, err)
			}
			return out
		}
		if out.first == 0 {
			out.first = max(time.Since(start), time.Nanosecond)
		}
		if chunk.Usage != nil {
			u := *chunk.Usage
			out.usage = &u
			chunk.Usage = nil
		}
		last = chunk
		if len(chunk.Choices) == 0 {
			continue
		}
		if err := w.Append(chunk); err != nil {
			out.err = errors.Join(engine.ErrClientGone, err)
			rs.Close(out.err)
			return out
		}
	}
	rs.Close(nil)
	if includeUsage && last != nil {
		usage := out.usage
		if usage == nil {
			usage = &engine.Usage{}
		}
		final := &engine.ChatChunk{ID: last.ID, Object: "chat.completion.chunk", Created: last.Created, Model: last.Model,
			SystemFingerprint: last.SystemFingerprint, Choices: []engine.ChunkChoice{}, Usage: usage}
		if err := w.Event(final); err != nil {
			return out
		}
	}
	_ = w.Done()
	return out
}
