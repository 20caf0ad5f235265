package blob

import (
	"context"
	"fmt"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// TestUpdatePerWriteAllocations: a write in a transaction costs its key
// and value buffer and Badger's own work, not a Badger entry of its own
// (the entries come from the pooled transaction's slab), and the
// transaction itself is pooled.
func TestUpdatePerWriteAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	s := New(Options{InMemory: true})
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	const many = 25
	keys := make([]string, many)
	for i := range keys {
		keys[i] = fmt.Sprintf("k/%02d", i)
	}
	value := []byte(`{"a":1}`)
	update := func(n int) float64 {
		return testing.AllocsPerRun(200, func() {
			if err := s.Update(ctx, func(tx engine.Tx) error {
				for _, k := range keys[:n] {
					if err := tx.PutRaw(k, value); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		})
	}
	one, all := update(1), update(many)
	perWrite := (all - one) / (many - 1)
	t.Logf("one write: %.1f allocations, %d writes: %.1f (%.2f a write)", one, many, all, perWrite)
	// 10.5 a write with an entry allocated for each (badger.Txn.Set), 9.5
	// from the slab; most of the rest is Badger's (its pending-writes map,
	// the versioned key, the skiplist node).
	if perWrite > 10 {
		t.Fatalf("a write in a transaction allocates %.2f times, want at most 10", perWrite)
	}
	// The pooled tx: one write was 24 allocations with a tx made for it.
	if one > 23 {
		t.Fatalf("a one-write transaction allocates %.0f times, want at most 23", one)
	}
}

// TestPooledTxForgetsItsTransaction: a transaction back in the pool holds
// neither Badger's transaction nor the keys and values of its writes.
func TestPooledTxForgetsItsTransaction(t *testing.T) {
	s := New(Options{InMemory: true})
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var kept *tx
	if err := s.Update(context.Background(), func(etx engine.Tx) error {
		kept = etx.(*tx)
		return etx.PutRaw("k/1", []byte("v"))
	}); err != nil {
		t.Fatal(err)
	}
	if kept.txn != nil || kept.used != 0 {
		t.Fatalf("released tx keeps txn %v, %d entries", kept.txn, kept.used)
	}
	for i, e := range kept.slab {
		if e.Key != nil || e.Value != nil {
			t.Fatalf("released slab entry %d keeps %q=%q", i, e.Key, e.Value)
		}
	}
}
