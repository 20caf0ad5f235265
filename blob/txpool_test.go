package blob

import (
	"context"
	"fmt"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// BenchmarkUpdateAllocs: a transaction of one write and one of 25. A
// write costs its key and value buffer and Badger's own work (its
// pending-writes map, the versioned key, the skiplist node), not a Badger
// entry of its own (the entries come from the pooled transaction's slab),
// and the transaction itself is pooled: 9.5 allocations a write and 23 for
// a one-write transaction on Go 1.26 (10.5 and 24 before the slab and the
// pool).
func BenchmarkUpdateAllocs(b *testing.B) {
	s := New(Options{InMemory: true})
	if err := s.Open(); err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	keys := make([]string, 25)
	for i := range keys {
		keys[i] = fmt.Sprintf("k/%02d", i)
	}
	value := []byte(`{"a":1}`)
	for _, n := range []int{1, len(keys)} {
		b.Run(fmt.Sprintf("writes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Update(ctx, func(tx engine.Tx) error {
					for _, k := range keys[:n] {
						if err := tx.PutRaw(k, value); err != nil {
							return err
						}
					}
					return nil
				}); err != nil {
					b.Fatal(err)
				}
			}
		})
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
