package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/server"
)

// RequestLimits are the per-client request limits and the thread limits
// (docs/security.md#request-and-thread-limits). Config embeds them, so their JSON
// keys sit at the top level of the config file.
type RequestLimits struct {
	// MaxInFlightPerKey bounds the requests one API key has in flight;
	// MaxInFlightPerIP those of one client address on requests without a
	// key (public routes, signed uploads). 0 (the default) turns a cap
	// off: the MaxConcurrent slots are shared fairly instead.
	MaxInFlightPerKey int64 `json:"max_inflight_per_key"`
	MaxInFlightPerIP  int64 `json:"max_inflight_per_ip"`
	// MaxQueued requests may wait up to QueueTimeout (a Go duration) for
	// one of the MaxConcurrent slots; 0 lets none wait.
	MaxQueued    int64  `json:"max_queued"`
	QueueTimeout string `json:"queue_timeout"`
	// BodyTimeout and UploadBodyTimeout (Go durations) bound how long a
	// request body may take to arrive, for JSON routes and for uploads
	// (the signed upload URL and /v1/parser).
	BodyTimeout       string `json:"body_timeout"`
	UploadBodyTimeout string `json:"upload_body_timeout"`
	// Thread limits (engine.ThreadLimits).
	ThreadMaxMessages     int64 `json:"thread_max_messages"`
	ThreadMaxMessageBytes int64 `json:"thread_max_message_bytes"`
	ThreadHistoryBytes    int64 `json:"thread_history_bytes"`
}

func defaultRequestLimits() RequestLimits {
	return RequestLimits{
		MaxQueued: server.DefaultMaxQueued, QueueTimeout: server.DefaultQueueTimeout.String(),
		BodyTimeout: server.DefaultBodyTimeout.String(), UploadBodyTimeout: server.DefaultUploadBodyTimeout.String(),
		ThreadMaxMessages: engine.DefaultThreadMaxMessages, ThreadMaxMessageBytes: engine.DefaultThreadMaxMessageBytes,
		ThreadHistoryBytes: engine.DefaultThreadHistoryBytes,
	}
}

func (c *Config) limitVars() []configVar {
	l := &c.RequestLimits
	return []configVar{
		{env: "HEARTH_MAX_INFLIGHT_PER_KEY", flag: "max-inflight-per-key", usage: "fixed cap on the requests one API key may have in flight; more get 429 (0 = no cap: keys share HEARTH_MAX_CONCURRENT fairly)", num: &l.MaxInFlightPerKey},
		{env: "HEARTH_MAX_INFLIGHT_PER_IP", flag: "max-inflight-per-ip", usage: "fixed cap on the requests without a key (public routes, uploads) one client address may have in flight (0 = no cap)", num: &l.MaxInFlightPerIP},
		{env: "HEARTH_MAX_QUEUED", flag: "max-queued", usage: "requests that may wait at once for a HEARTH_MAX_CONCURRENT slot; more get 503 (0 = none wait)", num: &l.MaxQueued},
		{env: "HEARTH_QUEUE_TIMEOUT", flag: "queue-timeout", usage: "longest a request waits for a HEARTH_MAX_CONCURRENT slot before it gets 503 (a Go duration)", str: &l.QueueTimeout},
		{env: "HEARTH_BODY_TIMEOUT", flag: "body-timeout", usage: "longest a JSON request body may take to arrive; slower bodies get 408 (a Go duration)", str: &l.BodyTimeout},
		{env: "HEARTH_UPLOAD_BODY_TIMEOUT", flag: "upload-body-timeout", usage: "longest an upload body (signed upload URL, /v1/parser) may take to arrive (a Go duration)", str: &l.UploadBodyTimeout},
		{env: "HEARTH_THREAD_MAX_MESSAGES", flag: "thread-max-messages", usage: "messages one thread may hold", num: &l.ThreadMaxMessages},
		{env: "HEARTH_THREAD_MAX_MESSAGE_BYTES", flag: "thread-max-message-bytes", usage: "largest message a client may store in a thread, in bytes", num: &l.ThreadMaxMessageBytes},
		{env: "HEARTH_THREAD_HISTORY_BYTES", flag: "thread-history-bytes", usage: "bytes of a thread's newest messages a run sends the model as history", num: &l.ThreadHistoryBytes},
	}
}

// validateRequestLimits checks the request and thread limits.
func (c *Config) validateRequestLimits() []error {
	var errs []error
	l := &c.RequestLimits
	for _, v := range []struct {
		name     string
		n        int64
		min, max int64
	}{
		{"HEARTH_MAX_INFLIGHT_PER_KEY", l.MaxInFlightPerKey, 0, maxRate},
		{"HEARTH_MAX_INFLIGHT_PER_IP", l.MaxInFlightPerIP, 0, maxRate},
		{"HEARTH_MAX_QUEUED", l.MaxQueued, 0, maxRate},
		{"HEARTH_THREAD_MAX_MESSAGES", l.ThreadMaxMessages, 2, 100_000_000},
		{"HEARTH_THREAD_MAX_MESSAGE_BYTES", l.ThreadMaxMessageBytes, 1024, 1 << 30},
		{"HEARTH_THREAD_HISTORY_BYTES", l.ThreadHistoryBytes, 1024, 1 << 30},
	} {
		if v.n < v.min || v.n > v.max {
			errs = append(errs, fmt.Errorf("%s %d: must be from %d to %d", v.name, v.n, v.min, v.max))
		}
	}
	if l.ThreadHistoryBytes < l.ThreadMaxMessageBytes {
		errs = append(errs, fmt.Errorf("HEARTH_THREAD_HISTORY_BYTES %d: must be at least HEARTH_THREAD_MAX_MESSAGE_BYTES (%d), or a run could not send the newest message as history",
			l.ThreadHistoryBytes, l.ThreadMaxMessageBytes))
	}
	if d, err := time.ParseDuration(strings.TrimSpace(l.QueueTimeout)); err != nil || d < 10*time.Millisecond || d > time.Hour {
		errs = append(errs, fmt.Errorf("HEARTH_QUEUE_TIMEOUT %q: must be a duration from 10ms to 1h, such as 10s", l.QueueTimeout))
	}
	for _, v := range []struct{ name, val string }{
		{"HEARTH_BODY_TIMEOUT", l.BodyTimeout}, {"HEARTH_UPLOAD_BODY_TIMEOUT", l.UploadBodyTimeout},
	} {
		if d, err := time.ParseDuration(strings.TrimSpace(v.val)); err != nil || d < time.Second || d > 24*time.Hour {
			errs = append(errs, fmt.Errorf("%s %q: must be a duration from 1s to 24h, such as 60s or 10m", v.name, v.val))
		}
	}
	return errs
}

// threadLimits returns the thread settings (call after Validate).
func (c *Config) threadLimits() engine.ThreadLimits {
	l := c.RequestLimits
	return engine.ThreadLimits{MaxMessages: l.ThreadMaxMessages, MaxMessageBytes: int(l.ThreadMaxMessageBytes), HistoryBytes: int(l.ThreadHistoryBytes)}
}

// applyRequestLimits copies the per-client limits and the waiting bounds
// to the server config (call after Validate), where a MaxQueued of 0
// means the default and < 0 none.
func (c *Config) applyRequestLimits(sc *server.Config) {
	l := c.RequestLimits
	sc.MaxInFlightPerKey, sc.MaxInFlightPerIP = int(l.MaxInFlightPerKey), int(l.MaxInFlightPerIP)
	sc.MaxQueued = int(l.MaxQueued)
	if l.MaxQueued == 0 {
		sc.MaxQueued = -1
	}
	sc.QueueTimeout, _ = time.ParseDuration(strings.TrimSpace(l.QueueTimeout))
	sc.BodyTimeout, _ = time.ParseDuration(strings.TrimSpace(l.BodyTimeout))
	sc.UploadBodyTimeout, _ = time.ParseDuration(strings.TrimSpace(l.UploadBodyTimeout))
}
