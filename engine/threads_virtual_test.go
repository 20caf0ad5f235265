package engine_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
)

const signedPipe = "pipe_AbCdEfGhIj0123456789"

func openDiskStore(t *testing.T, dir string) *blob.Store {
	t.Helper()
	s := blob.New(blob.Options{Dir: dir})
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	return s
}

func storeKeys(t *testing.T, s engine.Store, prefix string) []string {
	t.Helper()
	var keys []string
	if err := s.View(context.Background(), func(tx engine.Tx) error {
		return tx.Scan(prefix, "", func(k string, _ []byte) error { keys = append(keys, k); return nil })
	}); err != nil {
		t.Fatal(err)
	}
	return keys
}

func wantNotFound(t *testing.T, what string, err error) {
	t.Helper()
	if !engine.IsNotFound(err) {
		t.Fatalf("%s: %v, want NOT_FOUND", what, err)
	}
}

func textMsg(s string) []engine.ThreadMessageInput {
	return []engine.ThreadMessageInput{{Message: engine.Message{Role: "user", Content: engine.TextContent(s)}}}
}

// TestVirtualThreadLifecycle: a signed id is an empty thread of its owner
// and pipe with no record (not listed); another owner or a tampered id is
// NOT_FOUND; the first append or update writes it; delete makes every
// later access NOT_FOUND; an explicit create of the id conflicts while it
// exists and succeeds once it was deleted.
func TestVirtualThreadLifecycle(t *testing.T) {
	ctx := context.Background()
	s := openDiskStore(t, t.TempDir())
	defer s.Close()
	ts := engine.NewThreads(s)
	at := time.Date(2026, 11, 24, 19, 0, 0, 123_000_000, time.UTC)
	mint := func() string {
		id, err := engine.SignedThreadIDForTest(ctx, ts, "alice", signedPipe, at)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	id := mint()
	th, err := ts.Get(ctx, "alice", id)
	if err != nil {
		t.Fatal(err)
	}
	if th.ID != id || !th.CreatedAt.Equal(at) || th.PipeID != signedPipe || th.Metadata == nil || len(th.Metadata) != 0 || th.NextSeq != 0 {
		t.Fatalf("virtual thread %+v", th)
	}
	if keys := storeKeys(t, s, "thread"); len(keys) != 0 {
		t.Fatalf("drawing an id wrote %q", keys)
	}
	page, err := ts.MessagePage(ctx, "alice", id, engine.MessagePageOptions{Limit: 10})
	if err != nil || len(page.Messages) != 0 || page.Next != "" {
		t.Fatalf("messages %+v %v", page, err)
	}
	if l, err := ts.List(ctx, "alice", 10, ""); err != nil || len(l.Threads) != 0 {
		t.Fatalf("list %+v %v", l, err)
	}
	_, err = ts.Get(ctx, "bob", id)
	wantNotFound(t, "other owner", err)
	_, err = ts.Append(ctx, "bob", id, textMsg("x"))
	wantNotFound(t, "other owner append", err)
	wantNotFound(t, "other owner delete", ts.Delete(ctx, "bob", id))
	tampered := id[:40] + strings.Map(func(r rune) rune {
		if r == 'A' {
			return 'B'
		}
		return r
	}, id[40:41]) + id[41:]
	if tampered == id {
		tampered = id[:40] + "Z" + id[41:]
	}
	_, err = ts.Get(ctx, "alice", tampered)
	wantNotFound(t, "tampered", err)
	if _, err := ts.Create(ctx, "alice", engine.ThreadCreate{ID: id}); engine.ErrorCode(err) != engine.CodeConflict {
		t.Fatalf("create over an unwritten thread: %v", err)
	}

	// Append writes it, with its pipe and creation time.
	if _, err := ts.Append(ctx, "alice", id, textMsg("hello")); err != nil {
		t.Fatal(err)
	}
	l, err := ts.List(ctx, "alice", 10, "")
	if err != nil || len(l.Threads) != 1 || l.Threads[0].ID != id || l.Threads[0].PipeID != signedPipe ||
		!l.Threads[0].CreatedAt.Equal(at) || l.Threads[0].NextSeq != 1 {
		t.Fatalf("after append: list %+v %v", l, err)
	}
	// Update writes another one.
	id2 := mint()
	v := "v"
	if th, err := ts.UpdateMetadata(ctx, "alice", id2, map[string]*string{"k": &v}); err != nil || th.Metadata["k"] != "v" {
		t.Fatalf("update %+v %v", th, err)
	}
	if th, err := ts.Get(ctx, "alice", id2); err != nil || th.Metadata["k"] != "v" || th.PipeID != signedPipe {
		t.Fatalf("after update %+v %v", th, err)
	}
	if l, _ := ts.List(ctx, "alice", 10, ""); len(l.Threads) != 2 {
		t.Fatalf("list after update: %d threads", len(l.Threads))
	}

	// Delete: an unwritten thread and a written one, then every access 404.
	id3 := mint()
	for _, d := range []string{id, id3} {
		if err := ts.Delete(ctx, "alice", d); err != nil {
			t.Fatal(err)
		}
		_, err := ts.Get(ctx, "alice", d)
		wantNotFound(t, "get after delete", err)
		_, err = ts.Append(ctx, "alice", d, textMsg("x"))
		wantNotFound(t, "append after delete", err)
		_, err = ts.MessagePage(ctx, "alice", d, engine.MessagePageOptions{Limit: 1})
		wantNotFound(t, "messages after delete", err)
		_, err = ts.UpdateMetadata(ctx, "alice", d, map[string]*string{"k": &v})
		wantNotFound(t, "update after delete", err)
		wantNotFound(t, "delete after delete", ts.Delete(ctx, "alice", d))
	}
	if keys := storeKeys(t, s, "msg/"); len(keys) != 0 {
		t.Fatalf("messages left after delete: %q", keys)
	}
	// A deleted id may be created again explicitly, and deleted again.
	if _, err := ts.Create(ctx, "alice", engine.ThreadCreate{ID: id3, Messages: textMsg("again")}); err != nil {
		t.Fatal(err)
	}
	if th, err := ts.Get(ctx, "alice", id3); err != nil || th.NextSeq != 1 {
		t.Fatalf("re-created %+v %v", th, err)
	}
	if err := ts.Delete(ctx, "alice", id3); err != nil {
		t.Fatal(err)
	}
	_, err = ts.Get(ctx, "alice", id3)
	wantNotFound(t, "get after the second delete", err)
}

// TestSignedThreadIDKeyPersists: the signing key is one store record,
// created once: ids stay valid after a restart and in a restored backup,
// and services starting together over one store agree on it.
func TestSignedThreadIDKeyPersists(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openDiskStore(t, filepath.Join(dir, "a"))
	var wg sync.WaitGroup
	services := make([]*engine.Threads, 4)
	for i := range services {
		services[i] = engine.NewThreads(s)
		wg.Add(1)
		go func() { defer wg.Done(); _ = services[i].LoadIDKey(ctx) }()
	}
	wg.Wait()
	id, err := engine.SignedThreadIDForTest(ctx, services[0], "alice", signedPipe, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for i, ts := range services {
		if _, err := ts.Get(ctx, "alice", id); err != nil {
			t.Fatalf("service %d: %v", i, err)
		}
	}
	if keys := storeKeys(t, s, "meta/thread-id-key"); len(keys) != 1 {
		t.Fatalf("key records %q", keys)
	}
	var backup bytes.Buffer
	if err := s.Backup(ctx, &backup); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s = openDiskStore(t, filepath.Join(dir, "a"))
	if _, err := engine.NewThreads(s).Get(ctx, "alice", id); err != nil {
		t.Fatalf("after restart: %v", err)
	}
	s.Close()
	if err := blob.Restore(filepath.Join(dir, "b"), &backup); err != nil {
		t.Fatal(err)
	}
	s = openDiskStore(t, filepath.Join(dir, "b"))
	defer s.Close()
	if _, err := engine.NewThreads(s).Get(ctx, "alice", id); err != nil {
		t.Fatalf("after restore: %v", err)
	}
	// A fresh database has another key: the id names nothing there.
	fresh := blob.New(blob.Options{InMemory: true})
	if err := fresh.Open(); err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	ts := engine.NewThreads(fresh)
	_, err = ts.Get(ctx, "alice", id)
	wantNotFound(t, "before any key", err)
	if err := ts.LoadIDKey(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = ts.Get(ctx, "alice", id)
	wantNotFound(t, "under another key", err)
}
