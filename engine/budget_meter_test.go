package engine_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
)

// TestMeterTxMixedBatch meters one batch of several owners and keys and
// checks every counter against the sum of its records, on top of counters
// already stored in another key order (as another writer may have left
// them), and that the counters are stored as encoding/json writes them.
func TestMeterTxMixedBatch(t *testing.T) {
	store := blob.New(blob.Options{InMemory: true})
	if err := store.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	b := engine.NewBudgets(store)
	b.SetClock(func() time.Time { return time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC) })
	ctx := context.Background()
	if err := store.Update(ctx, func(tx engine.Tx) error {
		return tx.PutRaw("spend/ann/owner/m2026-03", []byte(`{"requests": 5, "nano_usd": 7, "tokens": 11}`))
	}); err != nil {
		t.Fatal(err)
	}
	c1, c2 := 0.25, 1e-9
	batch := []engine.RunRecord{
		{Owner: "ann", KeyID: "key_a", TotalTokens: 10, CostUSD: &c1},
		{Owner: "bob", TotalTokens: 5},
		{Owner: "ann", KeyID: "key_b", PromptTokens: 2, CompletionTokens: 3, CostUSD: &c2},
		{Owner: "ann", KeyID: "key_a", TotalTokens: 1},
		{Owner: "ann", TotalTokens: 100},
	}
	if err := store.Update(ctx, func(tx engine.Tx) error { return b.MeterTx(tx, batch) }); err != nil {
		t.Fatal(err)
	}
	want := map[string]engine.Spend{
		"spend/ann/owner/d2026-03-15": {Tokens: 116, NanoUSD: 250000001, Requests: 4},
		"spend/ann/owner/m2026-03":    {Tokens: 127, NanoUSD: 250000008, Requests: 9},
		"spend/ann/key_a/d2026-03-15": {Tokens: 11, NanoUSD: 250000000, Requests: 2},
		"spend/ann/key_a/m2026-03":    {Tokens: 11, NanoUSD: 250000000, Requests: 2},
		"spend/ann/key_b/d2026-03-15": {Tokens: 5, NanoUSD: 1, Requests: 1},
		"spend/ann/key_b/m2026-03":    {Tokens: 5, NanoUSD: 1, Requests: 1},
		"spend/bob/owner/d2026-03-15": {Tokens: 5, Requests: 1},
		"spend/bob/owner/m2026-03":    {Tokens: 5, Requests: 1},
	}
	got := map[string]engine.Spend{}
	if err := store.View(ctx, func(tx engine.Tx) error {
		return tx.Scan("spend/", "", func(k string, v []byte) error {
			var s engine.Spend
			if err := json.Unmarshal(v, &s); err != nil {
				t.Errorf("%s: %q is not a counter: %v", k, v, err)
			}
			if std, _ := json.Marshal(s); string(std) != string(v) {
				t.Errorf("%s stored as %s, encoding/json writes %s", k, v, std)
			}
			got[k] = s
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("%d counters %v, want %d", len(got), got, len(want))
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s = %+v, want %+v", k, got[k], w)
		}
	}
}
