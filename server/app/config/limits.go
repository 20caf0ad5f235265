package config

import (
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
	// MaxQueued requests may wait up to QueueTimeout for
	// one of the MaxConcurrent slots; 0 lets none wait.
	MaxQueued    int64    `json:"max_queued"`
	QueueTimeout Duration `json:"queue_timeout"`
	// BodyTimeout and UploadBodyTimeout (Go durations) bound how long a
	// request body may take to arrive, for JSON routes and for uploads
	// (the signed upload URL and /v1/parser).
	BodyTimeout       Duration `json:"body_timeout"`
	UploadBodyTimeout Duration `json:"upload_body_timeout"`
	// Thread limits (engine.ThreadLimits).
	ThreadMaxMessages     int64 `json:"thread_max_messages"`
	ThreadMaxMessageBytes int64 `json:"thread_max_message_bytes"`
	ThreadHistoryBytes    int64 `json:"thread_history_bytes"`
}

func defaultRequestLimits() RequestLimits {
	return RequestLimits{
		MaxQueued: server.DefaultMaxQueued, QueueTimeout: Duration(server.DefaultQueueTimeout),
		BodyTimeout: Duration(server.DefaultBodyTimeout), UploadBodyTimeout: Duration(server.DefaultUploadBodyTimeout),
		ThreadMaxMessages: engine.DefaultThreadMaxMessages, ThreadMaxMessageBytes: engine.DefaultThreadMaxMessageBytes,
		ThreadHistoryBytes: engine.DefaultThreadHistoryBytes,
	}
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
	sc.QueueTimeout = time.Duration(l.QueueTimeout)
	sc.TurnsPerCPU = int(c.CPUTurns)
	if c.CPUTurns == 0 {
		sc.TurnsPerCPU = -1
	}
	sc.BodyTimeout, sc.UploadBodyTimeout = time.Duration(l.BodyTimeout), time.Duration(l.UploadBodyTimeout)
}

// maxRate bounds the per-minute settings (a million a minute is far past
// what one server answers, and keeps the bucket arithmetic exact).
const maxRate = 1_000_000

// serverMaxConcurrent maps HEARTH_MAX_CONCURRENT to server.Config, where
// 0 means the default and a negative value no limit.
func (c *Config) serverMaxConcurrent() int {
	if c.MaxConcurrent == 0 {
		return -1
	}
	return int(c.MaxConcurrent)
}
