package rank

import (
	"math"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

func TestFuseRRF(t *testing.T) {
	h := func(ids ...string) []engine.ChunkHit {
		out := make([]engine.ChunkHit, len(ids))
		for i, id := range ids {
			out[i] = engine.ChunkHit{ID: id, Score: float64(10 - i)}
		}
		return out
	}
	got := FuseRRF(h("a", "b", "c"), h("c", "d", "a", "a"), 1, 1, 60)
	want := map[string]float64{
		"a": 1.0/61 + 1.0/63, "b": 1.0 / 62, "c": 1.0/63 + 1.0/61, "d": 1.0 / 62,
	}
	if len(got) != 4 {
		t.Fatalf("got %v", got)
	}
	for _, x := range got {
		if d := x.Score - want[x.ID]; d > 1e-12 || d < -1e-12 {
			t.Fatalf("%s: score %v want %v", x.ID, x.Score, want[x.ID])
		}
	}
	// a and c tie on score and best rank; b and d tie too: ids decide.
	var order []string
	for _, x := range got {
		order = append(order, x.ID)
	}
	if strings.Join(order, ",") != "a,c,b,d" {
		t.Fatalf("order %v", order)
	}
	if len(FuseRRF(nil, nil, 1, 1, 60)) != 0 {
		t.Fatal("empty inputs")
	}
}

func TestScaleRRF(t *testing.T) {
	// First place in both rankings scores 1; first in one of two equally
	// weighted rankings scores one half.
	hits := ScaleRRF(FuseRRF([]engine.ChunkHit{{ID: "a"}, {ID: "b"}}, []engine.ChunkHit{{ID: "a"}}, 1, 1, 60), 2, 60)
	if hits[0].ID != "a" || hits[0].Score != 1 || hits[1].ID != "b" || math.Abs(hits[1].Score-61.0/124) > 1e-12 {
		t.Fatalf("scaled: %v", hits)
	}
	if got := ScaleRRF([]engine.ChunkHit{{ID: "x", Score: 1}}, 1, 0); got[0].Score != 1 {
		t.Fatalf("default k, capped at 1: %v", got)
	}
}
