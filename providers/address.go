package providers

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// versionSegment matches an API version path segment: v1, v2, v1beta.
var versionSegment = regexp.MustCompile(`^v\d+[a-z0-9]*$`)

// withAddress adds to an error that suggests a wrong address (the
// provider could not be reached, or answered 404 or 405) the method and
// URL called and the setting holding the base URL, plus a hint when the
// URL has no version segment (Ollama, vLLM and most OpenAI-compatible
// servers serve under /v1). The URL is shown without its query, user
// info or fragment, where credentials may sit; the caller's redaction
// (Secrets) runs after this as well. status is 0 for a transport error.
func withAddress(err error, provider, method, rawURL string, status int) error {
	var e *engine.Error
	if err == nil || !errors.As(err, &e) {
		return err
	}
	if status != 0 && status != http.StatusNotFound && status != http.StatusMethodNotAllowed {
		return err
	}
	if status == 0 && e.Code != engine.CodeUpstream {
		return err // timeouts and cancellations are not about the address
	}
	u, perr := url.Parse(rawURL)
	if perr != nil {
		return err
	}
	u.RawQuery, u.ForceQuery, u.User, u.Fragment = "", false, nil, ""
	env, _ := EnvNames(provider)
	example := env + "="
	if strings.Contains(provider, deploymentInfix) {
		env, example = "its base_url in HEARTH_DEPLOYMENTS (or the config file's deployments)", ""
	}
	msg := fmt.Sprintf("%s (%s %s; the base URL is set by %s)", e.Message, method, u.String(), env)
	if status != 0 && !hasVersionSegment(u.Path) {
		msg += fmt.Sprintf("; hint: the URL has no API version segment: OpenAI-compatible servers such as Ollama, vLLM and llama.cpp serve under /v1, e.g. %shttp://127.0.0.1:11434/v1", example)
	}
	out := *e
	out.Message = msg
	return &out
}

func hasVersionSegment(path string) bool {
	for _, seg := range strings.Split(path, "/") {
		if versionSegment.MatchString(seg) {
			return true
		}
	}
	return false
}
