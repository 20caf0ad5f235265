package providers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/netguard"
)

// errTimeout is the cancel cause set when Config.Timeout expires, so a
// timeout can be told apart from the caller's own cancellation.
var errTimeout = errors.New("upstream timeout")

// maxErrorBody bounds how much of an upstream error body is read.
const maxErrorBody = 64 << 10

// upstreamError turns a non-2xx upstream answer into an engine error. The
// body is read (bounded) and closed.
func upstreamError(provider string, resp *http.Response) error {
	body := readErrorBody(resp)
	hint := parseRetryHint(body)
	wait := RetryAfter(resp.Header, time.Now())
	if wait == 0 {
		wait = hint.wait
	}
	return responseError(provider, resp.StatusCode, body, wait, hint)
}

// statusError maps an upstream HTTP status to an engine error code. A
// rejected provider key is a BAD_REQUEST, never a 401: the caller's own
// Hearth key was fine, the provider refused the provider key.
func statusError(provider string, status int, msg string, after time.Duration) error {
	cause := &HTTPError{Provider: provider, Status: status, Message: msg}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return &engine.Error{Code: engine.CodeBadRequest, Message: fmt.Sprintf("%s rejected the provider API key (HTTP %d): %s", provider, status, msg), Err: cause}
	case status == http.StatusTooManyRequests:
		secs := int((after + time.Second - 1) / time.Second)
		return &engine.Error{Code: engine.CodeRateLimited, Message: fmt.Sprintf("%s rate limit reached: %s", provider, msg), RetryAfter: secs, Err: cause}
	case status == http.StatusRequestTimeout || status == http.StatusGatewayTimeout:
		return &engine.Error{Code: engine.CodeUpstreamTimeout, Message: fmt.Sprintf("%s timed out (HTTP %d)", provider, status), Err: cause}
	case status >= 500:
		return &engine.Error{Code: engine.CodeUpstream, Message: fmt.Sprintf("%s failed (HTTP %d): %s", provider, status, msg), Err: cause}
	case status >= 400:
		return &engine.Error{Code: engine.CodeBadRequest, Message: fmt.Sprintf("%s: %s", provider, msg), Err: cause}
	}
	return &engine.Error{Code: engine.CodeUpstream, Message: fmt.Sprintf("%s answered HTTP %d", provider, status), Err: cause}
}

// errorMessage extracts the human message from the error bodies of the
// supported providers: {"error":{"message"}} (OpenAI, Anthropic, Gemini),
// {"message"} (Cohere, Mistral), {"error":"..."} and {"detail":...}.
func errorMessage(body []byte) string {
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &e) != nil {
		return clip(strings.TrimSpace(string(body)))
	}
	if len(e.Error) > 0 {
		var inner struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(e.Error, &inner) == nil && inner.Message != "" {
			return clip(inner.Message)
		}
		var s string
		if json.Unmarshal(e.Error, &s) == nil && s != "" {
			return clip(s)
		}
	}
	if e.Message != "" {
		return clip(e.Message)
	}
	if len(e.Detail) > 0 {
		var s string
		if json.Unmarshal(e.Detail, &s) == nil {
			return clip(s)
		}
		return clip(string(e.Detail))
	}
	return clip(strings.TrimSpace(string(body)))
}

func clip(s string) string {
	if len(s) > 500 {
		return s[:500] + "..."
	}
	return s
}

// RetryAfter parses a response's Retry-After (seconds or an HTTP date,
// https://www.rfc-editor.org/rfc/rfc9110#field.retry-after); 0 when absent
// or unreadable. Every outbound client with retries reads it here.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil && n >= 0 {
		return time.Duration(n * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// transportError maps a failed round trip or body read to an engine error,
// telling the caller's cancellation, our timeout, and network failures apart.
func transportError(provider string, ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil {
		if errors.Is(cause, errTimeout) {
			return &engine.Error{Code: engine.CodeUpstreamTimeout, Message: provider + " did not answer in time", Err: err}
		}
		if errors.Is(cause, context.DeadlineExceeded) {
			return &engine.Error{Code: engine.CodeUpstreamTimeout, Message: provider + " did not answer before the request deadline", Err: cause}
		}
		return &engine.Error{Code: engine.CodeUpstream, Message: "request to " + provider + " was cancelled", Err: cause}
	}
	if r, ok := netguard.AsRefusal(err); ok {
		return &engine.Error{Code: engine.CodeUpstream, Message: provider + ": " + r.Error(), Err: err}
	}
	return &engine.Error{Code: engine.CodeUpstream, Message: "could not reach " + provider, Err: err}
}

// errTruncated reports a stream that ended without its terminal event.
func errTruncated(provider string) error {
	return &engine.Error{Code: engine.CodeUpstream, Message: provider + " stream ended before its final event", Err: io.ErrUnexpectedEOF}
}

// streamEventError reports an error event sent inside an upstream stream.
func streamEventError(provider, kind, msg string) error {
	code := engine.CodeUpstream
	switch kind {
	case "rate_limit_error", "RESOURCE_EXHAUSTED", "rate_limited":
		code = engine.CodeRateLimited
	case "invalid_request_error", "INVALID_ARGUMENT":
		code = engine.CodeBadRequest
	}
	return &engine.Error{Code: code, Message: fmt.Sprintf("%s stream error: %s", provider, clip(msg))}
}
