package server

import (
	"net/http"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// responsesPipeRun serves a Responses call to the model pipe:<name>, as
// /openai/v1/chat/completions runs pipes: the pipe's prompt, variables,
// memories, tools and thread storage apply (lb-thread-id names and
// continues its thread), sampling fields the request sets override the
// pipe's, and the pipe run is the run record. The response itself is not
// kept (store is false in it), so previous_response_id, which continues
// a stored response, is refused: continue the pipe's thread instead.
func (s *Server) responsesPipeRun(c echo.Context, b *responsesBody, t engine.ModelTarget) error {
	if b.PreviousResponseID != nil && *b.PreviousResponseID != "" {
		return engine.FieldError("previous_response_id", "pipe:%s keeps its own thread: continue it with the lb-thread-id header (or send the history as input)", t.Pipe)
	}
	chat, tools, err := b.translate()
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	in, err := readResponsesInput(ctx, b.Input)
	if err != nil {
		return err
	}
	fallbacks, err := s.fallbackHeader(c)
	if err != nil {
		return err
	}
	who, err := s.pipeRunner(ctx, principal(c), t)
	if err != nil {
		return err
	}
	msgs := in.msgs
	if b.Instructions != nil && *b.Instructions != "" {
		msgs = append([]engine.Message{{Role: "system", Content: engine.TextContent(*b.Instructions)}}, msgs...)
	}
	pr, err := s.deps.Runner.Prepare(ctx, &engine.RunRequest{
		Principal: who, Name: t.Pipe, Messages: msgs, ThreadID: c.Request().Header.Get(headerThreadRequest),
		Tools: chat.Tools, LLMKey: llmKey(c.Request().Header), FallbackModels: fallbacks,
		Endpoint: responsesPath, Stream: b.Stream, Admit: s.admitPipe(c, nil),
	})
	if err != nil {
		if engine.IsNotFound(err) {
			return &engine.Error{Code: engine.CodeNotFound, Field: "model", Message: "model: " + b.Model + " not found", Err: err}
		}
		return err
	}
	overrideSampling(pr.Request, chat)
	store := false
	b.Store = &store
	rc := &responsesCall{body: b, owner: who.Owner, chat: chat, input: in, tools: tools, pipe: true, start: time.Now(),
		id: engine.NewPrefixedID(ctx, "resp_", 32), created: engine.NowFrom(ctx, time.Now).Unix()}
	if !b.Stream {
		resp, err := pr.Complete(ctx)
		setRunHeaders(c.Response().Header(), pr.ThreadID, pr.ModelID())
		if err != nil {
			return err
		}
		items, _, finish := chatOutput(ctx, tools, resp)
		obj := rc.object(b.Model, items)
		obj.Status, obj.IncompleteDetails = finishStatus(finish)
		obj.Usage = responsesUsage(&resp.Usage)
		return c.JSON(http.StatusOK, obj)
	}
	setThreadHeader(c, pr.ThreadID)
	rs, err := pr.Stream(ctx)
	setHeader(c.Response().Header(), HeaderModel, pr.ModelID())
	if err != nil {
		return err
	}
	return s.streamResponse(c, rc, rs, b.Model)
}
