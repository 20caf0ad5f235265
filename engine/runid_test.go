package engine

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// TestNewRunIDShape: run ids are the 19-digit zero-padded newest-first
// time key and a 6-character random part, as fmt's "%019d%s" wrote them,
// and they sort newest first.
func TestNewRunIDShape(t *testing.T) {
	ctx := context.Background()
	for _, at := range []time.Time{time.Unix(0, 0), time.Unix(1_800_000_000, 123), time.Unix(0, math.MaxInt64-42)} {
		id := NewRunID(ctx, at)
		want := fmt.Sprintf("%019d", math.MaxInt64-at.UnixNano())
		if len(id) != 25 || id[:19] != want {
			t.Fatalf("NewRunID(%v) = %q, want prefix %q and 25 characters", at, id, want)
		}
	}
	older, newer := NewRunID(ctx, time.Unix(100, 0)), NewRunID(ctx, time.Unix(200, 0))
	if newer >= older {
		t.Fatalf("newer run %q does not sort before older %q", newer, older)
	}
	// A deterministic scope draws the random part as NewID does.
	at := time.Unix(1_800_000_000, 0)
	id := NewRunID(WithIDs(ctx, NewDeterministic(3).Scope()), at)
	if want := NewRunID(ctx, at)[:19] + NewID(WithIDs(ctx, NewDeterministic(3).Scope()), 6); id != want {
		t.Fatalf("deterministic run id %q, want %q", id, want)
	}
	for i := range 200 {
		for _, c := range NewRunID(ctx, at)[19:] {
			if !strings.ContainsRune(base62, c) {
				t.Fatalf("draw %d: %q is not base62", i, c)
			}
		}
	}
}

// runIDSink keeps BenchmarkRunIDAllocs's ids on the heap, as a run's are.
var runIDSink string

// BenchmarkRunIDAllocs: a run id is one allocation (the random part is
// drawn into it), none in a run's room (Go 1.26).
func BenchmarkRunIDAllocs(b *testing.B) {
	ctx := context.Background()
	at := time.Unix(1_800_000_000, 0)
	b.Run("NewRunID", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			runIDSink = NewRunID(ctx, at)
		}
	})
	b.Run("in room", func(b *testing.B) {
		var room RunIDBuf
		b.ReportAllocs()
		for b.Loop() {
			NewRunIDIn(ctx, at, &room)
		}
	})
}

// TestFieldIndex: indexed field names read as before.
func TestFieldIndex(t *testing.T) {
	if got := fieldIndex("messages", 12); got != "messages[12]" {
		t.Fatalf("fieldIndex: %q", got)
	}
}
