package providers

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/netguard"
)

// ProviderConfig configures one provider. An empty BaseURL means the
// provider's public default (see DefaultBaseURL); APIKey is the server-wide
// key used when a request brings none.
type ProviderConfig struct {
	BaseURL string
	APIKey  string
}

// RetryPolicy controls retries of upstream calls. Retries happen only
// before any response byte reached the caller: on connection errors, 429
// and 5xx answers.
type RetryPolicy struct {
	// MaxAttempts is the total number of tries, including the first (>= 1).
	MaxAttempts int
	// BaseDelay is the first backoff; each retry doubles it, with jitter.
	BaseDelay time.Duration
	// MaxDelay caps one backoff.
	MaxDelay time.Duration
	// MaxRetryAfter caps how long a Retry-After header may make us wait;
	// a longer wait is not attempted and the 429/503 goes back to the caller.
	MaxRetryAfter time.Duration
}

// DefaultRetry is the policy used when Config.Retry is zero.
func DefaultRetry() RetryPolicy {
	return RetryPolicy{MaxAttempts: 3, BaseDelay: 250 * time.Millisecond, MaxDelay: 4 * time.Second, MaxRetryAfter: 20 * time.Second}
}

// Config builds a Registry. main.go fills it from HEARTH_<PROVIDER>_BASE_URL
// and HEARTH_<PROVIDER>_API_KEY (see EnvNames); nothing in this package reads
// the environment.
type Config struct {
	// Providers maps a provider name to its settings. A name that is not
	// built in (see KnownProviders) becomes an extra OpenAI-compatible
	// provider and must carry a BaseURL.
	Providers map[string]ProviderConfig
	// Models are the operator's model entries (HEARTH_MODELS_FILE) laid
	// over the built-in catalogue and rules; nil means the built-in data.
	Models *Models
	// HTTPClient is shared by every adapter; nil means one over
	// Egress.Transport. Its Timeout should be 0: streams may last minutes, and
	// Config.Timeout bounds each call instead.
	HTTPClient *http.Client
	// Retry is the retry policy; zero fields take DefaultRetry()'s values
	// (MaxAttempts 1 disables retries).
	Retry RetryPolicy
	// Timeout bounds a non-stream call, and for a stream the wait for the
	// response headers and then for each event. Zero means 120 s.
	Timeout time.Duration
	// Sleep waits between retries; nil means a real timer. Tests set it to
	// record backoffs without waiting.
	Sleep func(ctx context.Context, d time.Duration) error
	// Egress is the dialer of every upstream connection (nil: open mode,
	// nothing recorded). See docs/air-gapped.md.
	Egress *netguard.Egress
	// Wrap are RoundTripper layers put around the transport of every
	// upstream call (HTTPClient's or Egress's), the first innermost: the
	// recorder and replayer of HEARTH_RECORD / HEARTH_REPLAY and the fault
	// injector of HEARTH_FAULTS (docs/hearth-in-your-tests.md).
	Wrap []func(http.RoundTripper) http.RoundTripper
	// HTTP1 is how plain-http upstream calls go out when HTTPClient is nil
	// and Wrap empty: "lean" (or "") on the caller's goroutine over
	// pooled keep-alive connections (h1.go), "stdlib" through net/http's
	// Transport (HEARTH_UPSTREAM_HTTP1).
	HTTP1 string
	// Deployments are the models served by several servers (deploy.go);
	// nil: every model goes to its provider's one base URL.
	Deployments []ModelDeployments
	// Counter counts deployments' tokens for their TPM limits: the
	// cluster's shared counters, or engine.Local's in one process (nil:
	// TPM limits are not enforced).
	Counter engine.Cluster
	// Now is the clock of deployment cool-downs; nil means time.Now.
	Now func() time.Time
	// probeDone (tests) is called after each deployment health probe.
	probeDone func(name string, err error)
}

const defaultTimeout = 120 * time.Second

// NewTransport returns the pooled transport used when Config.HTTPClient is
// nil and no Egress is set: keep-alive connections, HTTP/2 where offered,
// bounded idle pool, dialled through the shared egress dialer in open mode.
func NewTransport() *http.Transport { return (*netguard.Egress)(nil).Transport("providers") }

// EnvNames returns the environment variable names main.go reads for a
// provider: HEARTH_<P>_BASE_URL and HEARTH_<P>_API_KEY, where <P> is the
// name upper-cased with '-' turned into '_' (openai-compatible ->
// HEARTH_OPENAI_COMPATIBLE_BASE_URL).
func EnvNames(provider string) (baseURL, apiKey string) {
	p := strings.ToUpper(strings.ReplaceAll(provider, "-", "_"))
	return "HEARTH_" + p + "_BASE_URL", "HEARTH_" + p + "_API_KEY"
}
