package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// This file serves OpenAI's Responses API at /openai/v1/responses, the
// protocol of Codex CLI and the OpenAI Agents SDK. Every request is
// translated to the canonical chat completion and runs through the same
// call as /openai/v1/chat/completions (Agent.Complete): key scopes,
// budgets, fallbacks, rate limits, the run log, record/replay and
// OpenTelemetry apply unchanged, on every provider. Stored responses
// live in the shared store as threads (engine.Responses).

const responsesPath = openAIPrefix + "/responses"

func (s *Server) openAIResponsesRoutes() []Route {
	return []Route{
		{Method: http.MethodPost, Path: responsesPath, Auth: AuthRun, Handler: s.handleResponsesCreate, BodyLimit: maxImageBody,
			Doc: RouteDoc{Summary: "OpenAI Responses API: a provider model (provider:model) or a pipe (pipe:<name>), translated to a chat completion; store keeps it as a thread",
				Request: responsesBody{}, Response: responseObject{}, Stream: true}},
		{Method: http.MethodGet, Path: responsesPath + "/:id", Auth: AuthRun, Handler: s.handleResponsesGet,
			Doc: RouteDoc{Summary: "A stored response", Response: responseObject{}}},
		{Method: http.MethodDelete, Path: responsesPath + "/:id", Auth: AuthRun, Handler: s.handleResponsesDelete,
			Doc: RouteDoc{Summary: "Delete a stored response (its messages stay in its thread)", Response: responseDeleted{}}},
		{Method: http.MethodGet, Path: responsesPath + "/:id/input_items", Auth: AuthRun, Handler: s.handleResponsesInputItems,
			Doc: RouteDoc{Summary: "The input items of a stored response", Response: itemList{}}},
	}
}

// responseDeleted answers DELETE /openai/v1/responses/{id}.
type responseDeleted struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Deleted bool   `json:"deleted"`
}

// responsesCall is one POST /openai/v1/responses being served.
type responsesCall struct {
	body    *responsesBody
	owner   string
	id      string
	created int64
	chat    *engine.ChatRequest
	input   *responsesInput
	tools   *toolMap
	prev    *engine.StoredResponse
	history []engine.Message
	start   time.Time
	// requestKey is the caller's provider key (LB-LLM-Key), kept out of
	// the run log.
	requestKey string
	// threadID is the thread a stored response that starts a
	// conversation goes to, chosen up front so a stream can name it.
	threadID string
	// pipe marks a pipe run, which records its own run and keeps its own
	// thread (responsesPipeRun).
	pipe bool
}

// store reports whether the response is kept (store defaults to true).
func (rc *responsesCall) store() bool { return rc.body.Store == nil || *rc.body.Store }

// responses is the response store over the server's threads.
func (s *Server) responses() *engine.Responses { return engine.NewResponses(s.deps.Threads) }

// handleResponsesCreate serves POST /openai/v1/responses.
func (s *Server) handleResponsesCreate(c echo.Context) error {
	var b responsesBody
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	if _, err := s.useCache(c, principal(c).Owner, "cache", b.Cache); err != nil {
		return err
	}
	if target, err := engine.ParseModelTarget("model", b.Model); err == nil && target.Pipe != "" {
		return s.responsesPipeRun(c, &b, target)
	}
	rc, ref, fallbacks, err := s.prepareResponse(c, &b)
	if err != nil {
		return err
	}
	s.noteDeployment(c)
	ctx := s.guardContext(c)
	res, err := s.deps.Agent.Complete(ctx, rc.owner, llmKey(c.Request().Header), ref, fallbacks, rc.chat, b.Stream)
	if err != nil {
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Field == "" {
			s.recordResponse(ctx, rc, ref.String(), b.Stream, relayOutcome{err: err}, nil, nil)
		}
		return err
	}
	model := engine.ModelIDOf(res.Model, b.Model)
	setHeader(c.Response().Header(), HeaderModel, model)
	if res.Stream != nil {
		res.Stream.StreamDeltas()
		return s.streamResponse(c, rc, res.Stream, model)
	}
	items, msg, finish := chatOutput(ctx, rc.tools, res.Response)
	obj := rc.object(model, items)
	obj.Status, obj.IncompleteDetails = finishStatus(finish)
	obj.Usage = responsesUsage(&res.Response.Usage)
	s.recordResponse(ctx, rc, model, false, relayOutcome{usage: &res.Response.Usage}, res.Response, &msg)
	if err := s.saveResponse(ctx, c, rc, obj, msg); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, obj)
}

// prepareResponse checks the request, reads the conversation it
// continues and builds the chat request, before anything is called.
func (s *Server) prepareResponse(c echo.Context, b *responsesBody) (*responsesCall, engine.ModelRef, []engine.ModelRef, error) {
	var ref engine.ModelRef
	target, err := engine.ParseModelTarget("model", b.Model)
	if err != nil {
		return nil, ref, nil, err
	}
	chat, tools, err := b.translate()
	if err != nil {
		return nil, ref, nil, err
	}
	ctx := c.Request().Context()
	in, err := readResponsesInput(ctx, b.Input)
	if err != nil {
		return nil, ref, nil, err
	}
	fallbacks, err := s.fallbackHeader(c)
	if err != nil {
		return nil, ref, nil, err
	}
	who := principal(c)
	if !who.IsOwnerKey() {
		return nil, ref, nil, engine.Errorf(engine.CodeForbidden, "a pipe key runs its own pipe only: use the model pipe:<name> (or a user or org key for provider models)")
	}
	if s.deps.Providers == nil {
		return nil, ref, nil, engine.Errorf(engine.CodeUnavailable, "no model providers are configured on this server")
	}
	rc := &responsesCall{body: b, owner: who.Owner, chat: chat, input: in, tools: tools,
		id: engine.NewPrefixedID(ctx, "resp_", 32), created: engine.NowFrom(ctx, time.Now).Unix(), requestKey: llmKey(c.Request().Header)}
	if b.PreviousResponseID != nil && *b.PreviousResponseID != "" {
		if rc.prev, rc.history, err = s.responses().History(ctx, who.Owner, *b.PreviousResponseID, "previous_response_id"); err != nil {
			return nil, ref, nil, err
		}
	}
	if rc.store() {
		if err := s.responses().CheckInput(in.msgs); err != nil {
			return nil, ref, nil, err
		}
		if rc.prev == nil {
			rc.threadID = engine.NewUUID(ctx)
		}
	}
	if b.Instructions != nil && *b.Instructions != "" {
		chat.Messages = append(chat.Messages, engine.Message{Role: "system", Content: engine.TextContent(*b.Instructions)})
	}
	chat.Messages = append(append(chat.Messages, rc.history...), in.msgs...)
	if err := s.checkBudget(c, who.Owner); err != nil {
		return nil, ref, nil, err
	}
	if len(tools.dropped) > 0 {
		setHeader(c.Response().Header(), HeaderWarning, strings.Join(tools.dropped, " and ")+" left out: Hearth runs no hosted tools")
	}
	rc.start = time.Now()
	return rc, target.Ref, fallbacks, nil
}

// object is the response object of the call, with output items.
func (rc *responsesCall) object(model string, items []any) *responseObject {
	b := rc.body
	obj := &responseObject{ID: rc.id, Object: "response", CreatedAt: rc.created, Status: "in_progress", Model: model, Output: items,
		Instructions: b.Instructions, ParallelToolCalls: b.ParallelToolCalls == nil || *b.ParallelToolCalls, PreviousResponseID: b.PreviousResponseID,
		Store: rc.store(), Temperature: b.Temperature, TopP: b.TopP, Truncation: "disabled", User: b.User, Metadata: b.Metadata,
		ToolChoice: b.ToolChoice, Tools: b.Tools, Text: responseTextView{Format: json.RawMessage(`{"type":"text"}`)}}
	if b.Reasoning != nil {
		obj.Reasoning = *b.Reasoning
	}
	if b.Text != nil && engine.JSONKind(b.Text.Format) == "object" {
		obj.Text.Format = b.Text.Format
	}
	if rc.chat.MaxTokens != nil {
		n := *rc.chat.MaxTokens
		obj.MaxOutputTokens = &n
	}
	if engine.JSONKind(obj.ToolChoice) == "null" {
		obj.ToolChoice = json.RawMessage(`"auto"`)
	}
	if obj.Tools == nil {
		obj.Tools = []json.RawMessage{}
	}
	if obj.Metadata == nil {
		obj.Metadata = map[string]string{}
	}
	if b.Truncation != nil {
		obj.Truncation = *b.Truncation
	}
	return obj
}

// saveResponse keeps a finished response when store is on: its input and
// answer are appended to a thread (named by the lb-thread-id header) and
// the response object is kept for GET and previous_response_id.
func (s *Server) saveResponse(ctx context.Context, c echo.Context, rc *responsesCall, obj *responseObject, answer engine.Message) error {
	if !rc.store() {
		return nil
	}
	body, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	items, err := json.Marshal(rc.input.items)
	if err != nil {
		return err
	}
	rec := &engine.StoredResponse{ID: rc.id, Owner: rc.owner, ThreadID: rc.threadID, Body: body, Input: items, CreatedAt: time.Unix(rc.created, 0).UTC()}
	msgs := append(append([]engine.Message{}, rc.input.msgs...), answer)
	if err := s.responses().Save(context.WithoutCancel(ctx), rec, rc.prev, rc.history, msgs); err != nil {
		return err
	}
	if c != nil {
		setHeader(c.Response().Header(), HeaderThreadID, rec.ThreadID)
	}
	return nil
}

// recordResponse writes the call to the run log, like a chat completion
// of /openai/v1/chat/completions but under the Responses endpoint; a
// whole answer offers its text to the run log's content keeping.
func (s *Server) recordResponse(ctx context.Context, rc *responsesCall, model string, stream bool, out relayOutcome, resp *engine.ChatResponse, answer *engine.Message) {
	if rc.pipe || s.deps.Runner == nil || s.deps.Runner.RunLog() == nil {
		return
	}
	rec := completionRecord(ctx, rc.owner, rc.start, model, stream, out)
	rec.Endpoint = responsesPath
	if answer != nil {
		completion := ""
		if resp != nil {
			completion = engine.Completion(resp)
		} else {
			completion = answer.Content.String()
		}
		rec.WithContent(rc.chat.Messages, completion, answer.ToolCalls, false, rc.chat.APIKey, rc.requestKey)
	}
	s.deps.Runner.RunLog().Record(rec)
}

// handleResponsesGet serves GET /openai/v1/responses/{id}.
func (s *Server) handleResponsesGet(c echo.Context) error {
	rec, err := s.storedResponse(c)
	if err != nil {
		return err
	}
	setHeader(c.Response().Header(), HeaderThreadID, rec.ThreadID)
	return c.JSONBlob(http.StatusOK, rec.Body)
}

// handleResponsesDelete serves DELETE /openai/v1/responses/{id}.
func (s *Server) handleResponsesDelete(c echo.Context) error {
	who := principal(c)
	if !who.IsOwnerKey() {
		return engine.Errorf(engine.CodeForbidden, "responses belong to users and orgs: use a user or org key")
	}
	id := param(c, "id")
	if err := s.responses().Delete(c.Request().Context(), who.Owner, id); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, responseDeleted{ID: id, Object: "response", Deleted: true})
}

// handleResponsesInputItems serves GET /openai/v1/responses/{id}/input_items:
// the items of the response's own input (not of the responses it
// continues), in order, or newest first with order=desc; after, before
// and limit (1-100, default 20) page them as OpenAI does.
func (s *Server) handleResponsesInputItems(c echo.Context) error {
	rec, err := s.storedResponse(c)
	if err != nil {
		return err
	}
	var items []json.RawMessage
	if err := json.Unmarshal(rec.Input, &items); err != nil {
		return engine.Wrap(err, engine.CodeInternal, "corrupt stored response %s", rec.ID)
	}
	page, err := itemPage(c, items)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, page)
}

// storedResponse reads the response the path names, for its owner.
func (s *Server) storedResponse(c echo.Context) (*engine.StoredResponse, error) {
	who := principal(c)
	if !who.IsOwnerKey() {
		return nil, engine.Errorf(engine.CodeForbidden, "responses belong to users and orgs: use a user or org key")
	}
	return s.responses().Get(c.Request().Context(), who.Owner, param(c, "id"))
}
