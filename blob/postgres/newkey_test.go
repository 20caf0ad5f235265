package postgres

import (
	"context"
	"testing"

	"github.com/hearth-dev/hearth/blob/postgres/pgtest"
	"github.com/hearth-dev/hearth/engine"
)

// TestSetNewInsertsThenUpserts: SetNew sends a plain INSERT (a new key
// costs one run of the transaction), and an existing key makes Update run
// the transaction again with upserts, once, with no conflict retry counted.
func TestSetNewInsertsThenUpserts(t *testing.T) {
	s := openURL(t, pgtest.URL(t), Options{})
	ctx := context.Background()
	update := func(kv ...string) int {
		t.Helper()
		runs := 0
		err := s.Update(ctx, func(tx engine.Tx) error {
			runs++
			for i := 0; i+1 < len(kv); i += 2 {
				if err := tx.(engine.NewKeySetter).SetNew([]byte(kv[i]), []byte(kv[i+1])); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return runs
	}
	if runs := update("k/1", "a", "k/2", "b"); runs != 1 {
		t.Errorf("new keys: %d runs of the transaction, want 1", runs)
	}
	if runs := update("k/3", "c", "k/1", "A"); runs != 2 {
		t.Errorf("an existing key: %d runs of the transaction, want 2 (an INSERT that fails, then upserts)", runs)
	}
	if got := s.Retries(); got != 0 {
		t.Errorf("%d conflict retries counted, want 0", got)
	}
	for k, want := range map[string]string{"k/1": "A", "k/2": "b", "k/3": "c"} {
		var got []byte
		if err := s.View(ctx, func(tx engine.Tx) (err error) { got, err = tx.GetRaw(k); return err }); err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", k, got, err, want)
		}
	}
}
