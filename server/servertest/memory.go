package servertest

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/index"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/server"
)

// UploadSecret signs the upload URLs of test servers.
var UploadSecret = []byte("hearth-test-upload-secret-32-bytes-long")

// memoryHooks holds the WithMemory adjustments of servers being built,
// keyed by their deps (Option has no place for them).
var memoryHooks sync.Map // *server.Deps -> []func(*memory.Config)

// WithMemory adjusts the memory engine's config (workers, retry delays,
// clock) before it is built.
func WithMemory(f func(*memory.Config)) Option {
	return func(_ *server.Config, d *server.Deps, _ *providers.Config) {
		hooks, _ := memoryHooks.Load(d)
		fs, _ := hooks.([]func(*memory.Config))
		memoryHooks.Store(d, append(fs, f))
	}
}

// FastRetries makes ingestion retry embedding failures after milliseconds.
func FastRetries() Option {
	return WithMemory(func(c *memory.Config) {
		c.RetryBaseDelay, c.RetryMaxDelay = time.Millisecond, 5*time.Millisecond
	})
}

// startMemory builds and opens the index and the memory engine on dir,
// unless an option already set deps.Memory.
func startMemory(t testing.TB, dir, url string, deps *server.Deps) (*index.Manager, *memory.Service) {
	t.Helper()
	hooks, _ := memoryHooks.LoadAndDelete(deps)
	if deps.Memory != nil {
		return nil, deps.Memory
	}
	idx := index.NewManager(deps.Store, filepath.Join(dir, "bleve"), index.Options{SnapshotInterval: -1, Logger: quietLogger()})
	if err := idx.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	cfg := memory.Config{
		Store: deps.Store, Index: idx, Providers: deps.Providers, Keysets: deps.Keysets,
		UploadSecret: UploadSecret, BaseURL: url, Logger: quietLogger(), IdleWait: time.Second,
		Quotas: engine.NewQuotas(deps.Store, 0, 0),
	}
	if deps.Metrics != nil {
		cfg.Metrics = deps.Metrics
	}
	fs, _ := hooks.([]func(*memory.Config))
	for _, f := range fs {
		f(&cfg)
	}
	mem, err := memory.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := mem.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	deps.Memory = mem
	if deps.Metrics != nil {
		deps.Metrics.WatchIndex(idx.Sizes)
		deps.Metrics.WatchIngestQueue(mem.QueueDepth)
	}
	return idx, mem
}
