package engine_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// TestGroupStoreResultsStayWithTheirWriter: writes are recycled once their
// caller has its result; over many rounds of concurrent writes, some
// failing with their own error and some cancelled before they queue, every
// caller gets exactly its own outcome.
func TestGroupStoreResultsStayWithTheirWriter(t *testing.T) {
	base := newHeld(t, false)
	g := engine.NewGroupStore(base, 8, 4)
	defer g.Close()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 300 {
				id := fmt.Sprintf("%d-%d", w, i)
				ctx := context.Background()
				if i%11 == 0 {
					ctx = cancelled
				}
				err := g.Update(ctx, func(tx engine.Tx) error {
					if err := tx.Put("r/"+id, id); err != nil {
						return err
					}
					if i%5 == 0 {
						return fmt.Errorf("write %s refused", id)
					}
					return nil
				})
				switch {
				case i%11 == 0:
					if err != context.Canceled {
						t.Errorf("write %s with a cancelled context: %v", id, err)
					}
				case i%5 == 0:
					if err == nil || err.Error() != "write "+id+" refused" {
						t.Errorf("write %s: %v, want its own refusal", id, err)
					}
				case err != nil:
					t.Errorf("write %s: %v", id, err)
				}
			}
		})
	}
	wg.Wait()
	for w := range 8 {
		for i := range 300 {
			id := fmt.Sprintf("%d-%d", w, i)
			if got, want := present(t, base, "r/"+id), i%11 != 0 && i%5 != 0; got != want {
				t.Fatalf("r/%s present=%v, want %v", id, got, want)
			}
		}
	}
}
