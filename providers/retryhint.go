package providers

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// retryHint is what an error body says about retrying, beyond the
// Retry-After header.
type retryHint struct {
	// wait is Google's RetryInfo.retryDelay: Gemini 429s carry the wait
	// in the body, not in Retry-After
	// (https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes).
	wait time.Duration
	// quota names an exhausted quota that no retry within the request
	// can outlast (a per-day Gemini quota, QuotaFailure with a PerDay
	// quotaId, https://ai.google.dev/gemini-api/docs/rate-limits): the
	// call fails at once instead of burning the retry budget.
	quota string
}

// googleErrorDetails is the google.rpc.Status error body of Google APIs.
type googleErrorDetails struct {
	Error struct {
		Details []struct {
			Type       string `json:"@type"`
			RetryDelay string `json:"retryDelay"`
			Violations []struct {
				QuotaID     string `json:"quotaId"`
				QuotaMetric string `json:"quotaMetric"`
			} `json:"violations"`
		} `json:"details"`
	} `json:"error"`
}

// parseRetryHint reads RetryInfo and QuotaFailure details of a Google
// error body; the zero hint for any other body.
func parseRetryHint(body []byte) retryHint {
	var h retryHint
	var g googleErrorDetails
	if json.Unmarshal(body, &g) != nil {
		return h
	}
	for _, d := range g.Error.Details {
		switch {
		case strings.HasSuffix(d.Type, "google.rpc.RetryInfo"):
			if w, err := time.ParseDuration(d.RetryDelay); err == nil && w > 0 {
				h.wait = w
			}
		case strings.HasSuffix(d.Type, "google.rpc.QuotaFailure"):
			for _, v := range d.Violations {
				if strings.Contains(v.QuotaID, "PerDay") && h.quota == "" {
					h.quota = v.QuotaID
				}
			}
		}
	}
	return h
}

// readErrorBody reads (bounded) and closes an error answer's body.
func readErrorBody(resp *http.Response) []byte {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
	return body
}

// responseError maps a non-2xx answer whose body was read to an engine
// error; wait is the retry delay the upstream asked for (0 when none).
func responseError(provider string, status int, body []byte, wait time.Duration, hint retryHint) error {
	msg := errorMessage(body)
	if msg == "" {
		msg = http.StatusText(status)
	}
	if hint.quota != "" {
		secs := int((wait + time.Second - 1) / time.Second)
		return &engine.Error{Code: engine.CodeRateLimited, RetryAfter: secs,
			Message: fmt.Sprintf("%s quota exhausted (%s); it resets at the end of the provider's quota day: %s", provider, hint.quota, msg),
			Err:     &HTTPError{Provider: provider, Status: status, Message: msg}}
	}
	if isQuota(status, body) {
		why, _ := quotaExhausted(body)
		return quotaError(provider, status, why, msg)
	}
	return statusError(provider, status, msg, wait)
}
