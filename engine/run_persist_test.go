package engine_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
)

// TestEmptyThreadMatchesAppendPath: the thread a store:false run creates
// is stored byte for byte as the append path (with no message) stores it,
// under the same keys, and reads back as an empty thread of its pipe.
func TestEmptyThreadMatchesAppendPath(t *testing.T) {
	p := &engine.Pipe{Owner: "alice", Name: "nostore", ID: "pipe_1"}
	write := func(fn func(context.Context, *engine.Threads, engine.Tx, *engine.Pipe, string) error) (map[string]string, *engine.Thread) {
		s := blob.New(blob.Options{InMemory: true})
		if err := s.Open(); err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ts := engine.NewThreads(s)
		ctx := engine.WithIDs(context.Background(), engine.NewDeterministic(7).Scope())
		if err := s.Update(ctx, func(tx engine.Tx) error { return fn(ctx, ts, tx, p, "thread-1") }); err != nil {
			t.Fatal(err)
		}
		kv := map[string]string{}
		if err := s.View(ctx, func(tx engine.Tx) error {
			return tx.Scan("", "", func(k string, v []byte) error { kv[k] = string(v); return nil })
		}); err != nil {
			t.Fatal(err)
		}
		th, err := ts.Get(ctx, "alice", "thread-1")
		if err != nil {
			t.Fatal(err)
		}
		return kv, th
	}
	got, gotThread := write(engine.PutEmptyThreadForTest)
	want, wantThread := write(engine.AppendEmptyThreadForTest)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("stored\n%q\nwant\n%q", got, want)
	}
	if len(got) != 2 {
		t.Fatalf("want the thread and its index entry, got %q", got)
	}
	if !reflect.DeepEqual(gotThread, wantThread) || gotThread.Pipe != "nostore" || gotThread.PipeID != "pipe_1" ||
		gotThread.NextSeq != 0 || gotThread.Metadata == nil || len(gotThread.Metadata) != 0 {
		t.Fatalf("thread %+v, want %+v", gotThread, wantThread)
	}
}

type ctxKey struct{}

// TestDetachedContext: a finished run writes with its request's values
// but without its cancellation, as context.WithoutCancel.
func TestDetachedContext(t *testing.T) {
	parent, cancel := context.WithTimeout(context.WithValue(context.Background(), ctxKey{}, "v"), time.Hour)
	pr := new(engine.PreparedRun)
	d := engine.DetachForTest(pr, parent)
	cancel()
	if d.Err() != nil || d.Done() != nil || d.Value(ctxKey{}) != "v" {
		t.Fatalf("detached: err %v, done %v, value %v", d.Err(), d.Done(), d.Value(ctxKey{}))
	}
	if _, ok := d.Deadline(); ok {
		t.Fatal("detached context has a deadline")
	}
	child, stop := context.WithCancel(d)
	defer stop()
	if child.Err() != nil {
		t.Fatal("a context derived from the detached one is cancelled by the request's")
	}
	stop()
	if !errors.Is(child.Err(), context.Canceled) {
		t.Fatal("derived context does not cancel")
	}
	if !strings.Contains(d.(interface{ String() string }).String(), "detached") {
		t.Fatal("String")
	}
}

// BenchmarkDetachAllocs: detaching a finished run's context allocates
// nothing (Go 1.26): the detached context lives in the run.
func BenchmarkDetachAllocs(b *testing.B) {
	parent, cancel := context.WithTimeout(context.WithValue(context.Background(), ctxKey{}, "v"), time.Hour)
	defer cancel()
	pr := new(engine.PreparedRun)
	b.ReportAllocs()
	for b.Loop() {
		_ = engine.DetachForTest(pr, parent)
	}
}
