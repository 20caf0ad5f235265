package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
)

// BenchmarkBudgetCheck is the cost Check adds to every spending request:
// one read transaction over the owner's budgets and their counters, with
// no budget (most owners) and with an owner and a key budget, both used.
func BenchmarkBudgetCheck(b *testing.B) {
	for _, withBudgets := range []bool{false, true} {
		name := "none"
		if withBudgets {
			name = "owner+key"
		}
		b.Run(name, func(b *testing.B) {
			s := blob.New(blob.Options{InMemory: true})
			if err := s.Open(); err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			acc := engine.NewAccounts(s)
			if _, err := acc.CreateUser(ctx, "ann"); err != nil {
				b.Fatal(err)
			}
			k, _, err := acc.CreateKey(ctx, "ann", "k")
			if err != nil {
				b.Fatal(err)
			}
			bs := engine.NewBudgets(s)
			if withBudgets {
				who := &engine.Principal{KeyID: "key_other", Kind: engine.KeyUser, Owner: "ann"}
				limit := int64(1 << 40)
				for _, in := range []engine.BudgetInput{{Period: "month", LimitTokens: &limit}, {KeyID: k.ID, Period: "day", LimitTokens: &limit}} {
					if _, err := bs.Set(ctx, who, in); err != nil {
						b.Fatal(err)
					}
				}
				cost := 0.01
				if err := s.Update(ctx, func(tx engine.Tx) error {
					return bs.MeterTx(tx, []engine.RunRecord{{Owner: "ann", KeyID: k.ID, TotalTokens: 100, CostUSD: &cost, CreatedAt: time.Now()}})
				}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if err := bs.Check(ctx, "ann", k.ID); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
