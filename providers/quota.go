package providers

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// A 429 is not always a rate limit. When the provider account is out of
// credit or past a spend limit, or a per-day or per-month allowance is
// used up, waiting seconds and retrying cannot help: the call fails at
// once, as a 400 saying so, and is not retried (neither here nor by
// document ingestion, which retries only rate limits and upstream
// failures).

// quotaCodes are OpenAI's error codes (error.type or error.code) of an
// exhausted account: https://platform.openai.com/docs/guides/error-codes
// and, listing the billing codes, Microsoft's guide
// https://learn.microsoft.com/en-us/microsoft-cloud/dev/dev-proxy/concepts/openai-insufficient-quota
var quotaCodes = map[string]bool{
	"insufficient_quota":                true,
	"credit_balance_exhausted":          true,
	"organization_spend_limit_exceeded": true,
	"project_spend_limit_exceeded":      true,
	"organization_usage_limit_exceeded": true,
}

// longWindowMarkers are how rate-limit messages name a daily or monthly
// window: Groq's "on tokens per day (TPD)" and "requests per day (RPD)"
// (https://console.groq.com/docs/rate-limits), and Cohere's trial keys,
// limited to 1,000 calls a month (https://docs.cohere.com/docs/rate-limits).
var longWindowMarkers = []string{"per day", "(tpd)", "(rpd)", "per month", "/ month", "/month", "monthly"}

// quotaExhausted reports whether a 429 body says the account's quota is
// used up rather than a short-window rate limit, and why.
func quotaExhausted(body []byte) (why string, ok bool) {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && len(e.Error) > 0 {
		var inner struct {
			Type string `json:"type"`
			Code any    `json:"code"`
		}
		if json.Unmarshal(e.Error, &inner) == nil {
			if quotaCodes[inner.Type] {
				return inner.Type, true
			}
			if c, _ := inner.Code.(string); quotaCodes[c] {
				return c, true
			}
		}
	}
	msg := strings.ToLower(errorMessage(body))
	for _, m := range longWindowMarkers {
		if strings.Contains(msg, m) {
			return "a daily or monthly limit", true
		}
	}
	return "", false
}

// quotaError is the engine error of an exhausted quota.
func quotaError(provider string, status int, why, msg string) error {
	return &engine.Error{Code: engine.CodeBadRequest,
		Message: fmt.Sprintf("%s quota exhausted (%s), retrying will not help until the provider account allows more: %s", provider, why, msg),
		Err:     &HTTPError{Provider: provider, Status: status, Message: msg}}
}
