package engine

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// withSeeds replaces the generators' seed source by one that writes fixed
// seeds and counts its reads, with an empty pool, until the test ends.
func withSeeds(t *testing.T) *int {
	t.Helper()
	oldRead, oldPool := seedRead, idRands
	var mu sync.Mutex
	reads := new(int)
	seedRead = func(b []byte) (int, error) {
		mu.Lock()
		*reads++
		mu.Unlock()
		for i := range b {
			b[i] = byte(i)
		}
		return len(b), nil
	}
	idRands = newIDRandPool()
	t.Cleanup(func() { seedRead, idRands = oldRead, oldPool })
	return reads
}

// TestIDsFromSeededGenerator: random ids come from a generator seeded from
// the seed source (crypto/rand), not from one crypto/rand read per id: two
// fresh generators with the same seed give the same ids.
func TestIDsFromSeededGenerator(t *testing.T) {
	reads := withSeeds(t)
	ctx := context.Background()
	key, err := newThreadIDKey(threadIDKeyRecord{Key: strings.Repeat("ab", 32)})
	if err != nil {
		t.Fatal(err)
	}
	at := time.UnixMilli(1700000000000)
	// Each id from a fresh pool: under the race detector sync.Pool drops
	// some of what is put back.
	kinds := []func() string{
		func() string { req, trace := NewPrefixedIDPair(ctx, "req_", 20, "trace_", 20); return req + trace },
		func() string { return NewPrefixedID(ctx, "msg_", 20) },
		func() string { return NewID(ctx, 12) },
		func() string { return NewUUID(ctx) },
		func() string { return string(appendNewID(ctx, nil, 16)) },
		func() string { return newSignedThreadID(key, "owner", strings.Repeat("p", signedPipeLen), at) },
	}
	draw := func() (ids []string) {
		for _, k := range kinds {
			idRands = newIDRandPool()
			ids = append(ids, k())
		}
		return ids
	}
	a, b := strings.Join(draw(), " "), strings.Join(draw(), " ")
	if a != b {
		t.Fatalf("ids drawn after the same seed differ:\n%s\n%s", a, b)
	}
	if want := 2 * len(kinds); *reads != want {
		t.Fatalf("seed source read %d times for %d fresh generators, want %d", *reads, want, want)
	}
	if k, k2 := RandomString(32), RandomString(32); k == k2 || *reads != 2*len(kinds) {
		t.Fatalf("key secrets must read crypto/rand, not the id generators (%q, %q, seed reads %d)", k, k2, *reads)
	}
}

// TestIDRandReseeds: a generator takes a new seed once it has given
// reseedAfter bytes, and not before.
func TestIDRandReseeds(t *testing.T) {
	reads := withSeeds(t)
	var g idRand
	buf := make([]byte, 1024)
	for range reseedAfter / len(buf) {
		g.read(buf)
	}
	if *reads != 1 {
		t.Fatalf("%d seed reads for reseedAfter bytes, want 1", *reads)
	}
	g.read(buf[:1])
	if *reads != 2 {
		t.Fatalf("%d seed reads past reseedAfter bytes, want 2", *reads)
	}
}

// TestRandomIDsDistinct: ids drawn at once from many goroutines (each
// generator used by one at a time) are all distinct.
func TestRandomIDsDistinct(t *testing.T) {
	const workers, each = 8, 2000
	out := make([][]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for range each {
				req, trace := NewPrefixedIDPair(context.Background(), "req_", 20, "trace_", 20)
				out[w] = append(out[w], req, trace)
			}
		})
	}
	wg.Wait()
	seen := make(map[string]bool, 2*workers*each)
	for _, ids := range out {
		for _, id := range ids {
			if seen[id[strings.IndexByte(id, '_')+1:]] {
				t.Fatalf("id %s drawn twice", id)
			}
			seen[id[strings.IndexByte(id, '_')+1:]] = true
		}
	}
}
