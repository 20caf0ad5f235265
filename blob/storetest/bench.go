package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// Bench measures the operations the engine does most on a store opened by
// open: a Get of a record, a Put in its own Update, and a Scan of a prefix
// of 100 records. Records are about 200 bytes of JSON.
func Bench(b *testing.B, open func(b *testing.B) engine.Store) {
	ctx := context.Background()
	type doc struct {
		ID   string `json:"id"`
		Text string `json:"text"`
		N    int    `json:"n"`
	}
	text := fmt.Sprintf("%0180d", 0)
	s := open(b)
	err := s.Update(ctx, func(tx engine.Tx) error {
		for i := 0; i < 100; i++ {
			if err := tx.Put(fmt.Sprintf("bench/scan/%03d", i), doc{fmt.Sprint(i), text, i}); err != nil {
				return err
			}
		}
		return tx.Put("bench/get", doc{"get", text, 1})
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("Get", func(b *testing.B) {
		for b.Loop() {
			var d doc
			if err := s.View(ctx, func(tx engine.Tx) error { return tx.Get("bench/get", &d) }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Put", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			if err := s.Update(ctx, func(tx engine.Tx) error { return tx.Put(fmt.Sprintf("bench/put/%d", i%1000), doc{"p", text, i}) }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Scan100", func(b *testing.B) {
		for b.Loop() {
			n := 0
			err := s.View(ctx, func(tx engine.Tx) error {
				return tx.Scan("bench/scan/", "", func(string, []byte) error { n++; return nil })
			})
			if err != nil || n != 100 {
				b.Fatalf("scan: %d records, %v", n, err)
			}
		}
	})
}
