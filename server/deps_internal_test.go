package server

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/agent"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/index"
	"github.com/hearth-dev/hearth/server/metrics"
)

// internalDeps opens an in-memory store and builds complete Deps over it,
// with no providers, for the tests of this package's internals. They
// cannot use servertest (server/app imports this package); everything
// else builds through server/app.
func internalDeps(t testing.TB) Deps {
	t.Helper()
	ctx := context.Background()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	store := blob.New(blob.Options{InMemory: true})
	if err := store.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	ks, err := engine.NewKeysets(store, nil, make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	idx := index.NewManager(store, filepath.Join(t.TempDir(), "bleve"), index.Options{SnapshotInterval: -1, Logger: quiet})
	if err := idx.Open(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idx.Close() })
	mem, err := memory.New(memory.Config{Store: store, Index: idx, Providers: noProviders{}, Keysets: ks,
		UploadSecret: make([]byte, 32), BaseURL: "http://h", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	d := Deps{Store: store, Accounts: engine.NewAccounts(store), Keysets: ks, Memory: mem,
		Backup: store.Backup, Metrics: metrics.New("test"), Threads: engine.NewThreads(store), Traces: engine.NewTraces(store),
		Images: engine.NewImages(nil, ks), Tools: engine.NewTools(nil, nil), Providers: noProviders{}}
	d.Pipes = engine.NewPipes(engine.PipesConfig{Store: store, Accounts: d.Accounts, Keysets: ks, Memories: mem})
	d.Runner = engine.NewRunner(engine.RunnerConfig{Pipes: d.Pipes, Threads: d.Threads, Keysets: ks, Memories: mem, Retriever: mem,
		RunLog: engine.NewRunLog(store, nil, quiet), Logger: quiet})
	d.Agent = agent.NewAgent(agent.AgentOptions{Keysets: ks})
	return d
}

// noProviders knows no provider: every model lookup fails.
type noProviders struct{ engine.Providers }
