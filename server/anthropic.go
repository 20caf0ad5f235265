package server

import (
	"errors"
	"net/http"
	"regexp"
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// This file is the Anthropic-compatible surface under /anthropic/v1:
// Claude Code and the Anthropic SDKs (base URL <hearth>/anthropic) reach
// every provider and pipe with a Hearth key in x-api-key or a bearer
// token. Requests are translated to the canonical chat model and run
// through the same completion path as /openai/v1/chat/completions, so
// scopes, budgets, fallbacks, rate limits, the run log and traces apply
// alike. Errors on it take Anthropic's shape.

// anthropicPrefix is the path prefix of the Anthropic-compatible surface.
const anthropicPrefix = "/anthropic/v1"

// HeaderTokenCount says how the input_tokens of a count_tokens answer
// were obtained: "anthropic" (counted by Anthropic) or "estimate".
const HeaderTokenCount = "lb-token-count"

func (s *Server) anthropicRoutes() []Route {
	return []Route{
		{Method: http.MethodPost, Path: anthropicPrefix + "/messages", Auth: AuthRun, Handler: s.handleMessages, BodyLimit: maxImageBody,
			Doc: RouteDoc{Summary: "Anthropic Messages API: a Claude model name, an alias, provider:model or pipe:<name>",
				Request: messagesRequest{}, Response: messagesResponse{}, Stream: true}},
		{Method: http.MethodPost, Path: anthropicPrefix + "/messages/count_tokens", Auth: AuthRun, Handler: s.handleCountTokens, BodyLimit: maxImageBody,
			Doc: RouteDoc{Summary: "Input tokens of a Messages request: counted by Anthropic for Claude models, estimated for others (lb-token-count says which)",
				Request: messagesRequest{}, Response: countTokensResponse{}}},
		{Method: http.MethodGet, Path: anthropicPrefix + "/models", Auth: AuthRun, Handler: s.handleAnthropicModels,
			Doc: RouteDoc{Summary: "Models this key can run, in Anthropic's list shape", Response: anthropicModelList{}}},
		{Method: http.MethodGet, Path: anthropicPrefix + "/models/*", Auth: AuthRun, Handler: s.handleAnthropicModel,
			Doc: RouteDoc{Summary: "One model this key can run, in Anthropic's shape", Response: anthropicModel{}}},
	}
}

func isAnthropicPath(p string) bool {
	return p == anthropicPrefix || strings.HasPrefix(p, anthropicPrefix+"/")
}

// AnthropicError is the error body of the Anthropic-compatible surface
// (https://docs.claude.com/en/api/errors).
type AnthropicError struct {
	Type  string               `json:"type"`
	Error AnthropicErrorDetail `json:"error"`
}

// AnthropicErrorDetail carries the error type and message.
type AnthropicErrorDetail struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// anthropicErrorBody words an engine error the way Anthropic does and
// returns the status Anthropic would answer with: Hearth at capacity
// (503) or an upstream answering 503 or 529 is 529 overloaded_error,
// other 5xx but timeouts are 500 api_error.
func anthropicErrorBody(ee *engine.Error, status int) (AnthropicError, int) {
	typ := "invalid_request_error"
	var up interface{ HTTPStatus() int }
	if status >= 500 && errors.As(ee, &up) && (up.HTTPStatus() == 529 || up.HTTPStatus() == http.StatusServiceUnavailable) {
		status = http.StatusServiceUnavailable
	}
	switch {
	case status == http.StatusUnauthorized:
		typ = "authentication_error"
	case status == http.StatusForbidden:
		typ = "permission_error"
	case status == http.StatusNotFound:
		typ = "not_found_error"
	case status == http.StatusRequestEntityTooLarge:
		typ = "request_too_large"
	case status == http.StatusTooManyRequests:
		typ = "rate_limit_error"
	case status == http.StatusServiceUnavailable:
		typ, status = "overloaded_error", 529
	case status == http.StatusGatewayTimeout:
		typ = "timeout_error"
	case status >= 500:
		typ, status = "api_error", http.StatusInternalServerError
	}
	msg := ee.Message
	if ee.Code == engine.CodeInternal {
		msg = "internal server error"
	}
	return AnthropicError{Type: "error", Error: AnthropicErrorDetail{Type: typ, Message: msg}}, status
}

// anthropicKey returns the key of an x-api-key header on the Anthropic
// surface ("" elsewhere): the SDKs send it instead of a bearer token.
func anthropicKey(c echo.Context) string {
	if !isAnthropicPath(c.Request().URL.Path) {
		return ""
	}
	return strings.TrimSpace(c.Request().Header.Get("x-api-key"))
}

// claudeModel matches the model names Anthropic serves: claude-, then
// letters, digits, dots and dashes (claude-sonnet-4-5,
// claude-3-5-haiku-20241022, claude-opus-4-7).
var claudeModel = regexp.MustCompile(`^claude-[a-z0-9.-]+$`)

// datedSuffix is the -YYYYMMDD snapshot date of a dated model id.
var datedSuffix = regexp.MustCompile(`-\d{8}$`)

// messagesTarget resolves a Messages request's model. A bare name is
// looked up in the alias table (the exact name, then the name without its
// -YYYYMMDD date, then "*"), else a Claude name goes to the anthropic
// provider; other names are provider:model, provider/model or
// pipe:<name> as on the OpenAI surface.
func (s *Server) messagesTarget(model string) (engine.ModelTarget, error) {
	name := strings.TrimSpace(model)
	if name == "" {
		return engine.ModelTarget{}, engine.FieldError("model", "is required: a Claude model name, provider:model or pipe:<name>")
	}
	if !strings.ContainsAny(name, ":/") {
		aliases := s.cfg.AnthropicModelAliases
		target, ok := aliases[name]
		if !ok {
			target, ok = aliases[datedSuffix.ReplaceAllString(name, "")]
		}
		if !ok {
			target, ok = aliases["*"]
		}
		if ok {
			return engine.ParseModelTarget("model", target)
		}
		if claudeModel.MatchString(name) {
			return engine.ModelTarget{Ref: engine.ModelRef{Provider: "anthropic", Model: name}}, nil
		}
		return engine.ModelTarget{}, &engine.Error{Code: engine.CodeNotFound, Field: "model",
			Message: "model: " + name + " is neither a Claude model nor an alias of HEARTH_ANTHROPIC_MODEL_ALIASES; name it provider:model (ollama:qwen3) or pipe:<name>"}
	}
	return engine.ParseModelTarget("model", name)
}
