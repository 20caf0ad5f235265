package providers

import (
	"errors"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// Redacted replaces a secret in error texts shown to callers and logged.
const Redacted = "[REDACTED]"

// minSecret is the shortest value redacted: shorter ones would mangle
// ordinary words of a message and protect nothing.
const minSecret = 4

// Secrets is the set of credentials one upstream call carried. Errors
// built from the upstream's answer go through it, so a service that echoes
// the key it received (in an error body, a stream error event or a URL in
// a transport error) never shows it to the caller or to the logs. It is
// derived from the request itself and from the server's configuration, so
// every Hearth node sharing one database computes the same set; nothing is
// kept between calls.
type Secrets []string

// credentialWords mark the header and query parameter names whose values
// are credentials: Authorization, x-api-key, x-goog-api-key, api-key,
// ?key=, ?access_token=, custom MCP headers such as X-Auth-Token.
var credentialWords = []string{"auth", "key", "token", "secret", "signature", "cookie", "password", "credential"}

func isCredentialName(name string) bool {
	n := strings.ToLower(name)
	for _, w := range credentialWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// RequestSecrets collects the credentials a request carries: the values
// of credential headers (and of an Authorization header, also its part
// after the scheme), credential query parameters, the URL's password, and
// the extra values given (server-wide keys).
func RequestSecrets(h http.Header, u *url.URL, extra ...string) Secrets {
	var s Secrets
	for name, vs := range h {
		if !isCredentialName(name) {
			continue
		}
		for _, v := range vs {
			s = append(s, v)
			if _, cred, ok := strings.Cut(v, " "); ok {
				s = append(s, strings.TrimSpace(cred))
			}
		}
	}
	if u != nil {
		for name, vs := range u.Query() {
			if isCredentialName(name) {
				s = append(s, vs...)
			}
		}
		if p, ok := u.User.Password(); ok {
			s = append(s, p)
		}
	}
	s = append(s, extra...)
	return s.normalize()
}

// normalize drops short and duplicate values and sorts the rest longest
// first, so a key is replaced before any shorter value it contains.
func (s Secrets) normalize() Secrets {
	seen := map[string]bool{}
	out := s[:0]
	for _, v := range s {
		if len(v) >= minSecret && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// Redact replaces every exact occurrence of a secret in msg, raw or
// URL-escaped (an echoed request URL carries the escaped form).
func (s Secrets) Redact(msg string) string {
	for _, v := range s {
		msg = strings.ReplaceAll(msg, v, Redacted)
		if q := url.QueryEscape(v); q != v {
			msg = strings.ReplaceAll(msg, q, Redacted)
		}
	}
	return msg
}

// Error returns err with every secret removed from its message and from
// the text of its cause, keeping its code and its chain for errors.Is and
// errors.As. A nil err stays nil.
func (s Secrets) Error(err error) error {
	if err == nil || len(s) == 0 {
		return err
	}
	var ee *engine.Error
	if errors.As(err, &ee) && ee == err {
		cp := *ee
		cp.Message = s.Redact(ee.Message)
		if ee.Err != nil {
			cp.Err = s.Error(ee.Err)
		}
		return &cp
	}
	var he *HTTPError
	if errors.As(err, &he) && he == err {
		cp := *he
		cp.Message = s.Redact(he.Message)
		return &cp
	}
	if red := s.Redact(err.Error()); red != err.Error() {
		return &redactedError{msg: red, err: err}
	}
	return err
}

// redactedError shows a redacted text and unwraps to the original cause,
// so sentinel checks (context.DeadlineExceeded, netguard.ErrRefused) still
// work while the secret never reaches a log line.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
