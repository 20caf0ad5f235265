package providers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/netguard"
)

// callers fills Config's defaults once and returns a constructor of
// callers that share the client, retry policy, timeout and sleep.
func (cfg Config) callers() func(name string) caller {
	client := cfg.HTTPClient
	var lean *h1Client
	if client == nil {
		t := cfg.Egress.Transport("providers")
		client = &http.Client{Transport: t}
		if len(cfg.Wrap) == 0 && cfg.HTTP1 != "stdlib" {
			lean = newH1Client(t)
		}
	}
	if len(cfg.Wrap) > 0 {
		wrapped := *client
		if wrapped.Transport == nil {
			wrapped.Transport = cfg.Egress.Transport("providers")
		}
		for _, w := range cfg.Wrap {
			wrapped.Transport = w(wrapped.Transport)
		}
		client = &wrapped
	}
	retry, def := cfg.Retry, DefaultRetry()
	if retry.MaxAttempts < 1 {
		retry.MaxAttempts = def.MaxAttempts
	}
	if retry.BaseDelay <= 0 {
		retry.BaseDelay = def.BaseDelay
	}
	if retry.MaxDelay <= 0 {
		retry.MaxDelay = def.MaxDelay
	}
	if retry.MaxRetryAfter <= 0 {
		retry.MaxRetryAfter = def.MaxRetryAfter
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	sleep := cfg.Sleep
	if sleep == nil {
		sleep = SleepCtx
	}
	var keys []string
	for _, pc := range cfg.Providers {
		keys = append(keys, SplitKeys(pc.APIKey)...)
	}
	for _, md := range cfg.Deployments {
		for _, d := range md.Servers {
			keys = append(keys, SplitKeys(d.APIKey)...)
		}
	}
	bearers := newBearerValues(keys)
	urls := new(urlCache)
	return func(name string) caller {
		return caller{provider: name, client: client, lean: lean, retry: retry, timeout: timeout, sleep: sleep, serverKeys: keys, bearers: bearers,
			label: netguard.NewLabel(name), urls: urls}
	}
}

// HTTPError is the cause wrapped by the engine error of a non-2xx upstream
// answer. Adapters that word some statuses their own way (a web search
// service's 401) find it with errors.As.
type HTTPError struct {
	Provider string
	Status   int
	Message  string
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("%s: HTTP %d: %s", e.Provider, e.Status, e.Message)
}

// HTTPStatus is the upstream status, for packages that may not import
// this one (the server words an overloaded upstream its own way).
func (e *HTTPError) HTTPStatus() int { return e.Status }

// UpstreamStatus returns the upstream HTTP status behind err, or 0.
func UpstreamStatus(err error) int {
	var he *HTTPError
	if errors.As(err, &he) {
		return he.Status
	}
	return 0
}

// ErrorMessage extracts the human message of an upstream error body in the
// common shapes ({"error":{"message"}}, {"error":"..."}, {"message"},
// {"detail"}), clipped to 500 bytes.
func ErrorMessage(body []byte) string { return errorMessage(body) }

// StatusError maps an upstream status and message to an engine error the
// way the chat adapters do (a rejected key is a 400, never a Hearth 401).
func StatusError(provider string, status int, msg string) error {
	return statusError(provider, status, msg, 0)
}

// Upstream calls one named HTTP service with the registry's client, retry
// policy (connection errors, 429 and 5xx, honouring Retry-After), per-call
// timeout and error mapping. It is the building block of the adapters
// that live outside this package: image hosts, web search and crawl
// services. It holds no per-request state and is safe for concurrent use.
type Upstream struct {
	c       caller
	maxBody int64
}

// NewUpstream returns the caller of the service called name (used in
// error messages). maxBody bounds a decoded answer; 0 means 32 MiB.
func NewUpstream(name string, cfg Config, maxBody int64) *Upstream {
	if maxBody <= 0 {
		maxBody = 32 << 20
	}
	return &Upstream{c: cfg.callers()(name), maxBody: maxBody}
}

// Name is the service name used in error messages.
func (u *Upstream) Name() string { return u.c.provider }

// PostJSON posts in as JSON and decodes a 2xx JSON answer into out.
func (u *Upstream) PostJSON(ctx context.Context, url string, in, out any, setHeaders func(http.Header)) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return u.Do(ctx, http.MethodPost, url, "", body, out, setHeaders)
}

// Get sends a GET and decodes a 2xx JSON answer into out.
func (u *Upstream) Get(ctx context.Context, url string, out any, setHeaders func(http.Header)) error {
	return u.Do(ctx, http.MethodGet, url, "", nil, out, setHeaders)
}

// Do sends one request (retried as the policy allows) and decodes a 2xx
// JSON answer into out. contentType overrides application/json for a
// non-nil body (multipart uploads).
func (u *Upstream) Do(ctx context.Context, method, url, contentType string, body []byte, out any, setHeaders func(http.Header)) error {
	headers := setHeaders
	if contentType != "" {
		headers = func(h http.Header) {
			h.Set("Content-Type", contentType)
			if setHeaders != nil {
				setHeaders(h)
			}
		}
	} else if headers == nil {
		headers = func(http.Header) {}
	}
	call, err := u.c.send(ctx, method, url, body, false, headers)
	if err != nil {
		return err
	}
	defer call.close()
	b, err := io.ReadAll(io.LimitReader(call.resp.Body, u.maxBody+1))
	if err != nil {
		return call.redact(transportError(u.c.provider, call.ctx, err))
	}
	if int64(len(b)) > u.maxBody {
		return &engine.Error{Code: engine.CodeUpstream, Message: fmt.Sprintf("%s sent an answer larger than %d MiB", u.c.provider, u.maxBody>>20)}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return &engine.Error{Code: engine.CodeUpstream, Message: u.c.provider + " sent a response Hearth could not read", Err: err}
	}
	return nil
}

// BaseURL returns the configured base URL of a provider without a trailing
// slash, or its public default (DefaultBaseURL); "" when it has neither.
// A configured URL that is not absolute http(s) is an error.
func (cfg Config) BaseURL(name string) (string, error) {
	u := strings.TrimRight(cfg.Providers[name].BaseURL, "/")
	if u == "" {
		u = DefaultBaseURL(name)
	}
	if u == "" {
		return "", nil
	}
	pu, err := url.Parse(u)
	if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
		return "", fmt.Errorf("providers: %s base URL %q is not an absolute http(s) URL", name, u)
	}
	return u, nil
}
