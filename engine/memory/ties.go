package memory

import (
	"slices"

	"github.com/hearth-dev/hearth/engine"
)

// orderTies sorts hits best first and equal scores by chunk id. The index
// returns equal scores in the order it took the chunks in, which differs
// between a memory built by ingestion and the same memory imported from a
// pack (docs/memories-and-retrieval.md#memory-packs); ranks feed the fused score, so ties must
// not depend on that order.
func orderTies(hits []engine.ChunkHit) {
	slices.SortStableFunc(hits, func(a, b engine.ChunkHit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
}
