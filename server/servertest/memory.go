package servertest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/engine/parse/sandbox"
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
	parser, err := NewParser(sandbox.Config{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := memory.Config{
		Store: deps.Store, Index: idx, Providers: deps.Providers, Keysets: deps.Keysets,
		UploadSecret: UploadSecret, BaseURL: url, Logger: quietLogger(), IdleWait: time.Second,
		Parse: parser.Parse, Quotas: engine.NewQuotas(deps.Store, 0, 0),
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

// Main is the TestMain of every package whose tests use servertest:
//
//	func TestMain(m *testing.M) { servertest.Main(m) }
//
// Test servers parse PDFs the way hearth does, in a child process, and the
// child is the test binary itself: Main makes it act as the parser when it
// is started with the sandbox subcommand. Without the hook a PDF parse
// fails with an internal error ("the PDF parser process gave no answer").
func Main(m *testing.M) {
	if sandbox.IsChild(os.Args[1:]) {
		os.Exit(sandbox.Serve(os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// NewParser returns the sandboxed parser of test servers: the child is this
// test binary, started so that it runs no test (see Main). Zero fields of
// cfg take sandbox's defaults; the logger is quiet unless set.
func NewParser(cfg sandbox.Config) (*sandbox.Parser, error) {
	if cfg.Command == nil {
		cfg.Command = []string{os.Args[0], "-test.run=^$", sandbox.Subcommand}
	}
	if cfg.Logger == nil {
		cfg.Logger = quietLogger()
	}
	return sandbox.New(cfg)
}
