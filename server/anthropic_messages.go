package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// handleMessages serves POST /anthropic/v1/messages. The request becomes
// a canonical chat request and runs as /openai/v1/chat/completions runs
// it: a provider model as one completion (with LB-Fallback-Models), a
// pipe: model through the pipe; the answer is written back as a Messages
// answer or its event stream.
func (s *Server) handleMessages(c echo.Context) error {
	var b messagesRequest
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	target, err := s.messagesTarget(b.Model)
	if err != nil {
		return err
	}
	if _, err := s.useCache(c, principal(c).Owner, "cache", b.Cache); err != nil {
		return err
	}
	chat, only, err := b.chat()
	if err != nil {
		return err
	}
	fallbacks, err := s.fallbackHeader(c)
	if err != nil {
		return err
	}
	if target.Pipe != "" {
		return s.messagesPipeRun(c, target, chat, only, fallbacks, b)
	}
	applyAntOnly(c, chat, only, append([]engine.ModelRef{target.Ref}, fallbacks...))
	who := principal(c)
	if !who.IsOwnerKey() {
		return engine.Errorf(engine.CodeForbidden, "a pipe key runs its own pipe only: use the model pipe:<name> (or a user or org key for provider models)")
	}
	if err := s.checkBudget(c, who.Owner); err != nil {
		return err
	}
	s.noteDeployment(c)
	ctx := s.guardContext(c)
	start := time.Now()
	res, err := s.deps.Agent.Complete(ctx, who.Owner, llmKey(c.Request().Header), target.Ref, fallbacks, chat, b.Stream)
	if err != nil {
		// As on the OpenAI surface: a request whose field is wrong is not
		// a run; a missing key or a failed upstream call is.
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Field == "" {
			s.recordMessages(ctx, who.Owner, start, target.Ref.String(), b.Stream, relayOutcome{err: err})
		}
		return err
	}
	setHeader(c.Response().Header(), HeaderModel, res.Model.String())
	if res.Stream != nil {
		res.Stream.StreamDeltas()
		out := s.messagesRelay(c, res.Stream, b.Model)
		s.recordMessages(ctx, who.Owner, start, res.Model.String(), true, out)
		return out.answer()
	}
	s.recordMessagesAnswered(ctx, who.Owner, start, res.Model.String(), chat, res.Response, llmKey(c.Request().Header))
	return c.JSON(http.StatusOK, messageOf(ctx, res.Response, b.Model))
}

// messagesPipeRun runs a pipe for the Messages surface, as openAIPipeRun
// does for chat completions: the request's messages are the new turn,
// its sampling fields override the pipe's, LB-Thread-ID continues a
// thread.
func (s *Server) messagesPipeRun(c echo.Context, t engine.ModelTarget, chat *engine.ChatRequest, only antOnly, fallbacks []engine.ModelRef, b messagesRequest) error {
	ctx := c.Request().Context()
	who, err := s.pipeRunner(ctx, principal(c), t)
	if err != nil {
		return err
	}
	dropCacheControl(chat)
	pr, err := s.deps.Runner.Prepare(ctx, &engine.RunRequest{
		Principal: who, Name: t.Pipe, Messages: chat.Messages, ThreadID: c.Request().Header.Get(headerThreadRequest),
		Tools: chat.Tools, LLMKey: llmKey(c.Request().Header), FallbackModels: fallbacks,
		Endpoint: anthropicPrefix + "/messages", Stream: b.Stream, Admit: s.admitPipe(c, nil),
	})
	if err != nil {
		if engine.IsNotFound(err) {
			return &engine.Error{Code: engine.CodeNotFound, Field: "model", Message: "model: " + b.Model + " not found", Err: err}
		}
		return err
	}
	refs := []engine.ModelRef{}
	if ref, err := engine.ParseModelID("model", pr.ModelID()); err == nil {
		refs = append(refs, ref)
	}
	applyAntOnly(c, chat, only, append(refs, fallbacks...))
	overrideSampling(pr.Request, chat)
	if !b.Stream {
		resp, err := pr.Complete(ctx)
		setRunHeaders(c.Response().Header(), pr.ThreadID, pr.ModelID())
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, messageOf(ctx, resp, b.Model))
	}
	setThreadHeader(c, pr.ThreadID)
	rs, err := pr.Stream(ctx)
	setHeader(c.Response().Header(), HeaderModel, pr.ModelID())
	if err != nil {
		return err
	}
	return s.messagesRelay(c, rs, b.Model).answer()
}

// applyAntOnly sends thinking, top_k, metadata, cache_control
// breakpoints and the anthropic-beta header on when every model that may answer (the model and its
// fallbacks) is Anthropic's; other providers do not take them, so they
// are left out and, for thinking and top_k, named in the lb-warning
// header.
func applyAntOnly(c echo.Context, chat *engine.ChatRequest, only antOnly, refs []engine.ModelRef) {
	allAnt := len(refs) > 0
	for _, r := range refs {
		allAnt = allAnt && r.Provider == "anthropic"
	}
	if !allAnt {
		dropCacheControl(chat)
	} else {
		thinkingFrom(chat, refs[0].Model)
		if beta := betaHeader(c.Request().Header); beta != "" {
			addAntBeta(chat, beta)
		}
	}
	fields := map[string]json.RawMessage{"thinking": only.thinking, "top_k": only.topK, "metadata": only.metadata}
	var dropped []string
	for _, k := range []string{"thinking", "top_k", "metadata"} {
		v := fields[k]
		if len(v) == 0 {
			continue
		}
		if allAnt {
			if chat.Extra == nil {
				chat.Extra = map[string]json.RawMessage{}
			}
			chat.Extra[k] = v
		} else if k != "metadata" {
			dropped = append(dropped, k)
		}
	}
	if len(dropped) > 0 {
		setHeader(c.Response().Header(), HeaderWarning, strings.Join(dropped, " and ")+" ignored: only Anthropic models take them")
	}
}

// dropCacheControl removes the request's cache_control breakpoints, for
// providers without Anthropic's prompt cache: text parts go back to
// plain text, joined by blank lines, as they would without breakpoints.
func dropCacheControl(chat *engine.ChatRequest) {
	for i := range chat.Tools {
		chat.Tools[i].CacheControl = nil
	}
	for i := range chat.Messages {
		m := &chat.Messages[i]
		m.CacheControl = nil
		if m.Content.Parts == nil {
			continue
		}
		parts := make([]engine.ContentPart, len(m.Content.Parts))
		for j, p := range m.Content.Parts {
			p.CacheControl = nil
			parts[j] = p
		}
		m.Content = partsContent(parts)
	}
}

// betaHeader is the request's anthropic-beta betas, comma-separated (the
// header may come more than once).
func betaHeader(h http.Header) string {
	var names []string
	for _, v := range h.Values("anthropic-beta") {
		for _, b := range strings.Split(v, ",") {
			if b = strings.TrimSpace(b); b != "" {
				names = append(names, b)
			}
		}
	}
	return strings.Join(names, ",")
}

// addAntBeta adds betas to the anthropic_beta model parameter the
// anthropic adapter sends as its anthropic-beta header, after those a
// pipe or the request already set there.
func addAntBeta(chat *engine.ChatRequest, betas string) {
	if chat.Extra == nil {
		chat.Extra = map[string]json.RawMessage{}
	}
	var list []string
	var one string
	switch raw := chat.Extra["anthropic_beta"]; {
	case len(raw) == 0:
	case json.Unmarshal(raw, &one) == nil:
		list = append(list, one)
	case json.Unmarshal(raw, &list) == nil:
	default:
		return
	}
	chat.Extra["anthropic_beta"], _ = json.Marshal(strings.Join(append(list, betas), ","))
}
