package server

import (
	"net/http"
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/agent"
	"github.com/labstack/echo/v4"
)

// This file is the OpenAI-compatible surface under /openai/v1: any client
// with an "OpenAI base URL" setting reaches Hearth's providers and pipes
// with a Hearth API key (docs/openai-and-anthropic.md#openai-compatible-api). Errors on it
// take OpenAI's shape; the Langbase routes keep theirs.

// openAIPrefix is the path prefix of the OpenAI-compatible surface.
const openAIPrefix = "/openai/v1"

// HeaderModel names the model that answered a run ("provider:model"):
// the pipe's or request's model, or the fallback model that served it.
const HeaderModel = "lb-model"

// HeaderFallbackModels is the request header of the OpenAI-compatible
// surface that lists fallback models, comma-separated, in order.
const HeaderFallbackModels = "LB-Fallback-Models"

// HeaderThreadRequest continues a stored thread when a pipe: model runs
// through the OpenAI-compatible surface (the answer's lb-thread-id).
const HeaderThreadRequest = "LB-Thread-ID"

func (s *Server) openAIRoutes() []Route {
	return []Route{
		{Method: http.MethodPost, Path: openAIPrefix + "/chat/completions", Auth: AuthRun, Handler: s.handleOpenAIChat, BodyLimit: maxImageBody,
			Doc: RouteDoc{Summary: "OpenAI-compatible chat completion: a provider model (provider:model or provider/model) or a pipe (pipe:<name>)",
				Request: agent.CompletionRequest{}, Response: engine.ChatResponse{}, Stream: true}},
		{Method: http.MethodPost, Path: openAIPrefix + "/embeddings", Auth: AuthOwner, Handler: s.handleOpenAIEmbeddings,
			Doc: RouteDoc{Summary: "OpenAI-compatible embeddings (float or base64)", Request: openAIEmbeddingBody{}, Response: openAIEmbeddingResponse{}}},
		{Method: http.MethodGet, Path: openAIPrefix + "/models", Auth: AuthRun, Handler: s.handleOpenAIModels,
			Doc: RouteDoc{Summary: "Models this key can run, pipe: entries included", Response: openAIList[openAIModel]{}}},
		{Method: http.MethodGet, Path: openAIPrefix + "/models/*", Auth: AuthRun, Handler: s.handleOpenAIModel,
			Doc: RouteDoc{Summary: "One model this key can run", Response: openAIModel{}}},
		{Method: http.MethodPost, Path: openAIPrefix + "/images/generations", Auth: AuthOwner, Handler: s.handleOpenAIImages, BodyLimit: maxImageBody,
			Doc: RouteDoc{Summary: "OpenAI-compatible image generation", Request: openAIImageBody{}, Response: openAIImageResponse{}}},
		{Method: http.MethodPost, Path: openAIPrefix + "/moderations", Auth: AuthOwner, Handler: s.handleOpenAIModerations,
			Doc: RouteDoc{Summary: "OpenAI-compatible moderation, one result per input", Request: openAIModerationBody{}, Response: openAIModerationResponse{}}},
	}
}

func isOpenAIPath(p string) bool {
	return p == openAIPrefix || strings.HasPrefix(p, openAIPrefix+"/")
}

// OpenAIError is the error body of the OpenAI-compatible surface
// (https://platform.openai.com/docs/guides/error-codes): client libraries
// raise their own exception classes from the status and this body.
type OpenAIError struct {
	Error OpenAIErrorDetail `json:"error"`
}

// OpenAIErrorDetail carries the message, type, offending parameter and code.
type OpenAIErrorDetail struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// openAIErrorBody words an engine error the way OpenAI does: the type
// follows the status, the code is Hearth's error code in lower case (or
// OpenAI's own name where one exists), param is the field at fault.
func openAIErrorBody(ee *engine.Error, status int) OpenAIError {
	typ := "invalid_request_error"
	code := strings.ToLower(ee.Code)
	switch {
	case status == http.StatusUnauthorized:
		typ, code = "authentication_error", "invalid_api_key"
	case status == http.StatusForbidden:
		typ = "permission_error"
	case status == http.StatusNotFound:
		typ = "not_found_error"
		if ee.Field == "model" {
			code = "model_not_found"
		}
	case status == http.StatusTooManyRequests:
		typ, code = "rate_limit_error", "rate_limit_exceeded"
	case status >= 500:
		typ = "server_error"
	}
	msg := ee.Message
	if ee.Code == engine.CodeInternal {
		msg = "internal server error"
	}
	d := OpenAIErrorDetail{Message: msg, Type: typ, Code: &code}
	if ee.Field != "" {
		f := ee.Field
		d.Param = &f
	}
	return OpenAIError{Error: d}
}

// openAIError writes an error event inside a started stream, in the shape
// the OpenAI SDKs raise from ({"error":{...}}).
func (s *Server) openAIStreamError(c echo.Context, w *eventWriter, err error) {
	ee, status := toEngineError(err)
	log := s.log.With("request_id", headerValue(c.Response().Header(), HeaderRequestID), "path", c.Request().URL.Path)
	if status >= 500 {
		log.Error("stream failed", "code", ee.Code, "err", err)
	} else {
		log.Info("stream stopped", "code", ee.Code, "err", err)
	}
	_ = w.Event(openAIErrorBody(ee, status))
}

// fallbackHeader reads LB-Fallback-Models: comma-separated provider
// models, each "provider:model" or "provider/model". nil when absent.
func (s *Server) fallbackHeader(c echo.Context) ([]engine.ModelRef, error) {
	h := strings.TrimSpace(c.Request().Header.Get(headerFallbackModels))
	if h == "" {
		return nil, nil
	}
	var ids []string
	for _, part := range strings.Split(h, ",") {
		t, err := engine.ParseModelTarget(HeaderFallbackModels, part)
		if err != nil {
			return nil, err
		}
		if t.Pipe != "" {
			return nil, engine.FieldError(HeaderFallbackModels, "lists provider models only, not %q", strings.TrimSpace(part))
		}
		ids = append(ids, t.Ref.String())
	}
	return engine.ParseFallbackModels(HeaderFallbackModels, ids, s.deps.Providers)
}
