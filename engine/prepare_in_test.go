package engine_test

import (
	"context"
	"testing"
	"unsafe"

	"github.com/hearth-dev/hearth/engine"
)

// TestPrepareInBuildsTheRunInTheCallersValue: a prepared run lives where
// the caller keeps it (Runner.PrepareIn; the pipe route keeps it in the
// decoded body), with the model's messages, its request, its run id and
// (for a pipe that stores nothing) its new signed thread id inside that
// value: none costs an allocation of its own.
func TestPrepareInBuildsTheRunInTheCallersValue(t *testing.T) {
	accounts, store := newAccounts(t)
	prov := stubProviders{serverKeys: map[string]string{"openai": "server-key"}}
	ks, err := engine.NewKeysets(store, prov, make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	ps := engine.NewPipes(engine.PipesConfig{Store: store, Accounts: accounts, Keysets: ks, Cluster: &engine.Local{}})
	ctx := context.Background()
	name, model, off := "prepared", "openai:gpt-4o-mini", false
	if _, _, _, err := ps.Create(ctx, "alice", nil, &engine.PipeInput{Name: &name, Model: &model, Store: &off}, false); err != nil {
		t.Fatal(err)
	}
	r := engine.NewRunner(engine.RunnerConfig{Pipes: ps, Threads: engine.NewThreads(store), Keysets: ks, Providers: prov})
	in := &engine.RunRequest{Principal: &engine.Principal{Owner: "alice", Kind: engine.KeyUser, KeyID: "key_1"}, Name: name,
		Messages: []engine.Message{{Role: "user", Content: engine.TextContent("Say something about foxes.")}}}
	into := new(engine.PreparedRun)
	pr, err := r.PrepareIn(ctx, in, into)
	if err != nil {
		t.Fatal(err)
	}
	start, end := uintptr(unsafe.Pointer(into)), uintptr(unsafe.Pointer(into))+unsafe.Sizeof(*into)
	inside := func(p unsafe.Pointer) bool { return uintptr(p) >= start && uintptr(p) < end }
	id := engine.PreparedRunID(pr)
	if pr != into || !inside(unsafe.Pointer(pr.Request)) || !inside(unsafe.Pointer(&pr.Request.Messages[0])) ||
		len(id) != 25 || !inside(unsafe.Pointer(unsafe.StringData(id))) {
		t.Fatalf("prepared run %p (into %p), request inside %v, messages inside %v, run id %q inside %v", pr, into,
			inside(unsafe.Pointer(pr.Request)), inside(unsafe.Pointer(&pr.Request.Messages[0])), id, inside(unsafe.Pointer(unsafe.StringData(id))))
	}
	if len(pr.ThreadID) != engine.SignedThreadIDLen || !inside(unsafe.Pointer(unsafe.StringData(pr.ThreadID))) {
		t.Fatalf("thread id %q inside %v", pr.ThreadID, inside(unsafe.Pointer(unsafe.StringData(pr.ThreadID))))
	}
	if err := engine.ValidateThreadID("threadId", pr.ThreadID); err != nil {
		t.Fatal(err)
	}
	last := pr.Request.Messages[len(pr.Request.Messages)-1]
	if pr.Request.APIKey != "server-key" || pr.Request.Model != "gpt-4o-mini" || last.Content.Text != "Say something about foxes." {
		t.Fatalf("request %+v", pr.Request)
	}
	if again, err := r.Prepare(ctx, in); err != nil || again == into {
		t.Fatalf("Prepare: %p, %v; want a run of its own", again, err)
	}
}
