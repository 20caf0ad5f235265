package engine

import (
	"errors"
	"fmt"
)

// Error codes. Each maps to one HTTP status in server/errors.go; the wire
// names follow the Langbase error catalogue so SDK users can switch on them.
const (
	CodeBadRequest         = "BAD_REQUEST"
	CodeUnauthorized       = "UNAUTHORIZED"
	CodeForbidden          = "FORBIDDEN"
	CodeNotFound           = "NOT_FOUND"
	CodeMethodNotAllowed   = "METHOD_NOT_ALLOWED"
	CodeConflict           = "CONFLICT"
	CodePreconditionFailed = "PRECONDITION_FAILED"
	CodePayloadTooLarge    = "PAYLOAD_TOO_LARGE"
	CodeUnsupportedMedia   = "UNSUPPORTED_MEDIA_TYPE"
	CodeRateLimited        = "RATE_LIMITED"
	CodeUpstream           = "UPSTREAM_ERROR"
	CodeUpstreamTimeout    = "UPSTREAM_TIMEOUT"
	CodeUnavailable        = "SERVICE_UNAVAILABLE"
	CodeInsufficientStore  = "INSUFFICIENT_STORAGE"
	CodeInternal           = "INTERNAL_SERVER_ERROR"
)

// CodeUsageExceeded refuses work past a per-owner quota (storage); the
// Langbase catalogue answers it 403.
const CodeUsageExceeded = "USAGE_EXCEEDED"

// Error is the one error type of the domain. Message is safe to show to the
// caller; Field names the request field at fault when there is one. Err, when
// set, is the underlying cause: it is logged, never shown.
type Error struct {
	Code    string
	Message string
	Field   string
	// RetryAfter, in seconds, is sent as the Retry-After header when > 0.
	RetryAfter int
	Err        error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Code + ": " + e.Message + ": " + e.Err.Error()
	}
	return e.Code + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an *Error with a formatted, caller-safe message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// FieldError reports a bad request field: the message names the field and the rule.
func FieldError(field, format string, args ...any) *Error {
	return &Error{Code: CodeBadRequest, Field: field, Message: field + ": " + fmt.Sprintf(format, args...)}
}

// NotFound reports a missing resource of the given kind ("pipe", "memory", ...).
func NotFound(kind, name string) *Error {
	return &Error{Code: CodeNotFound, Message: fmt.Sprintf("%s %q not found", kind, name)}
}

// Wrap attaches a cause to a caller-safe error.
func Wrap(err error, code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: err}
}

// ErrorCode returns the code of err, or CodeInternal when err is not an *Error.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// IsNotFound reports whether err is (or wraps) a NOT_FOUND engine error.
func IsNotFound(err error) bool { return err != nil && ErrorCode(err) == CodeNotFound }

// ErrNotFound is returned by stores for a missing key.
var ErrNotFound = &Error{Code: CodeNotFound, Message: "not found"}
