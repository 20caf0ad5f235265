package engine

import (
	"slices"
	"testing"
)

// TestChoiceSet: indexes in and out of the bit mask (negative ones
// included) are members once added, and listed.
func TestChoiceSet(t *testing.T) {
	var c choiceSet
	if !c.empty() || c.has(0) {
		t.Fatal("a new set is not empty")
	}
	for _, i := range []int{0, 63, 64, -1, 1000, 5, 0} {
		c.add(i)
	}
	for _, i := range []int{0, 5, 63, 64, -1, 1000} {
		if !c.has(i) {
			t.Fatalf("%d missing", i)
		}
	}
	for _, i := range []int{1, 62, 65, -2} {
		if c.has(i) {
			t.Fatalf("%d present", i)
		}
	}
	got := c.indexes()
	slices.Sort(got)
	if !slices.Equal(got, []int{-1, 0, 5, 63, 64, 1000}) || c.empty() {
		t.Fatalf("indexes %v", got)
	}
	var low choiceSet
	for _, i := range []int{0, 1, 63} {
		low.add(i)
	}
	if low.more != nil {
		t.Fatal("indexes in the bit mask made a map")
	}
}

// BenchmarkChoiceSetAllocs: the common choice 0 is a bit in the mask, no
// allocation (Go 1.26).
func BenchmarkChoiceSetAllocs(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var c choiceSet
		c.add(0)
		_ = c.has(0)
	}
}
