package server

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// statusOf is the single table from engine error codes to HTTP statuses.
var statusOf = map[string]int{
	engine.CodeBadRequest:         http.StatusBadRequest,
	engine.CodeUnauthorized:       http.StatusUnauthorized,
	engine.CodeForbidden:          http.StatusForbidden,
	engine.CodeNotFound:           http.StatusNotFound,
	engine.CodeMethodNotAllowed:   http.StatusMethodNotAllowed,
	engine.CodeConflict:           http.StatusConflict,
	engine.CodePreconditionFailed: http.StatusPreconditionFailed,
	engine.CodePayloadTooLarge:    http.StatusRequestEntityTooLarge,
	engine.CodeUnsupportedMedia:   http.StatusUnsupportedMediaType,
	engine.CodeRateLimited:        http.StatusTooManyRequests,
	engine.CodeUsageExceeded:      http.StatusForbidden,
	CodeRequestTimeout:            http.StatusRequestTimeout,
	engine.CodeUpstream:           http.StatusBadGateway,
	engine.CodeUpstreamTimeout:    http.StatusGatewayTimeout,
	engine.CodeUnavailable:        http.StatusServiceUnavailable,
	engine.CodeInsufficientStore:  http.StatusInsufficientStorage,
	engine.CodeInternal:           http.StatusInternalServerError,
}

// codeOfStatus maps echo's own HTTP errors (routing, body limit) to codes.
var codeOfStatus = map[int]string{
	http.StatusBadRequest:            engine.CodeBadRequest,
	http.StatusUnauthorized:          engine.CodeUnauthorized,
	http.StatusForbidden:             engine.CodeForbidden,
	http.StatusNotFound:              engine.CodeNotFound,
	http.StatusMethodNotAllowed:      engine.CodeMethodNotAllowed,
	http.StatusRequestEntityTooLarge: engine.CodePayloadTooLarge,
	http.StatusUnsupportedMediaType:  engine.CodeUnsupportedMedia,
	http.StatusTooManyRequests:       engine.CodeRateLimited,
	http.StatusServiceUnavailable:    engine.CodeUnavailable,
}

const docsBase = "https://langbase.com/docs/api-reference/errors/"

// ErrorBody4xx is the client-error shape read by the langbase SDK.
type ErrorBody4xx struct {
	Success bool        `json:"success"`
	Error   ErrorDetail `json:"error"`
}

// ErrorDetail carries the status, code, message and docs link of a 4xx.
type ErrorDetail struct {
	Status  int    `json:"status"`
	Code    string `json:"code"`
	Message string `json:"message"`
	Docs    string `json:"docs"`
	Field   string `json:"field,omitempty"`
	// RateLimit repeats the RateLimit-* headers on a 429, as BaseAI does.
	RateLimit *RateLimitInfo `json:"rateLimit,omitempty"`
}

// RateLimitInfo is the limit, the requests left and the seconds until the
// budget is whole again.
type RateLimitInfo struct {
	Limit     int `json:"limit"`
	Remaining int `json:"remaining"`
	Reset     int `json:"reset"`
}

// ErrorBody5xx is the server-error shape (docs/getting-started.md#errors).
type ErrorBody5xx struct {
	Success bool   `json:"success"`
	Error   string `json:"error"`
	Code    string `json:"code"`
	Status  int    `json:"status"`
}

// toEngineError turns any handler error into an engine error with a status.
func toEngineError(err error) (*engine.Error, int) {
	var ee *engine.Error
	if errors.As(err, &ee) {
		if st, ok := statusOf[ee.Code]; ok {
			return ee, st
		}
		return ee, http.StatusInternalServerError
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		code, ok := codeOfStatus[he.Code]
		if !ok {
			code = engine.CodeInternal
		}
		msg := http.StatusText(he.Code)
		switch he.Code {
		case http.StatusNotFound:
			msg = "route not found"
		case http.StatusMethodNotAllowed:
			msg = "method not allowed on this route"
		case http.StatusRequestEntityTooLarge:
			msg = "request body is too large"
		}
		return &engine.Error{Code: code, Message: msg, Err: err}, he.Code
	}
	return &engine.Error{Code: engine.CodeInternal, Message: "internal server error", Err: err}, http.StatusInternalServerError
}

// handleError is echo's one HTTPErrorHandler: every non-2xx leaves here as JSON.
func (s *Server) handleError(err error, c echo.Context) {
	ee, status := toEngineError(err)
	log := s.log.With("request_id", headerValue(c.Response().Header(), HeaderRequestID), "trace_id", headerValue(c.Response().Header(), HeaderTraceID), "method", c.Request().Method, "path", c.Request().URL.Path, "status", status)
	if status >= 500 {
		log.Error("request failed", "code", ee.Code, "err", err)
	} else if ee.Err != nil {
		log.Debug("request refused", "code", ee.Code, "err", err)
	}
	if c.Response().Committed {
		return
	}
	if ee.RetryAfter > 0 {
		c.Response().Header().Set("Retry-After", strconv.Itoa(ee.RetryAfter))
	}
	if isAnthropicPath(c.Request().URL.Path) {
		body, st := anthropicErrorBody(ee, status)
		_ = c.JSON(st, body)
		return
	}
	if isOpenAIPath(c.Request().URL.Path) {
		_ = c.JSON(status, openAIErrorBody(ee, status))
		return
	}
	if c.Request().URL.Path == mcpPath {
		_ = c.JSON(status, mcpErrorBody(c, ee, status))
		return
	}
	if status >= 500 {
		msg := ee.Message
		if ee.Code == engine.CodeInternal {
			msg = "internal server error"
		}
		_ = c.JSON(status, ErrorBody5xx{Success: false, Error: msg, Code: ee.Code, Status: status})
		return
	}
	_ = c.JSON(status, ErrorBody4xx{Error: ErrorDetail{
		Status: status, Code: ee.Code, Message: ee.Message, Field: ee.Field,
		Docs: docsBase + strings.ToLower(ee.Code), RateLimit: rateLimitInfo(c.Response().Header(), ee.Code),
	}})
}

// rateLimitInfo reads back the RateLimit-* headers of a RATE_LIMITED answer.
func rateLimitInfo(h http.Header, code string) *RateLimitInfo {
	if code != engine.CodeRateLimited || h.Get(HeaderRateLimit) == "" {
		return nil
	}
	limit, _ := strconv.Atoi(h.Get(HeaderRateLimit))
	remaining, _ := strconv.Atoi(h.Get(HeaderRateLimitRemaining))
	reset, _ := strconv.Atoi(h.Get(HeaderRateLimitReset))
	return &RateLimitInfo{Limit: limit, Remaining: remaining, Reset: reset}
}
