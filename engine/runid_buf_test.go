package engine

import (
	"context"
	"testing"
	"time"
	"unsafe"
)

// TestNewRunIDIn: a run id in a run's room is NewRunID's id (the same
// with a deterministic scope) and shares the room's bytes; pipe runs (PreparedRun.idBuf) and agent runs (the
// recorder's) draw theirs so.
func TestNewRunIDIn(t *testing.T) {
	at := time.Unix(1_800_000_000, 0)
	det := func() context.Context { return WithIDs(context.Background(), NewDeterministic(3).Scope()) }
	var room RunIDBuf
	id := NewRunIDIn(det(), at, &room)
	if want := NewRunID(det(), at); id != want || unsafe.StringData(id) != &room[0] {
		t.Fatalf("NewRunIDIn = %q (in the room %v), want %q", id, unsafe.StringData(id) == &room[0], want)
	}
	if id := NewRunIDIn(context.Background(), at, &room); len(id) != 25 || id[:19] != NewRunID(context.Background(), at)[:19] {
		t.Fatalf("random id %q", id)
	}
}
