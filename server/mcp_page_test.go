package server

import (
	"slices"
	"testing"
)

// TestMCPPageOf: pages cover a list once, in order, and a cursor this
// server did not give is refused as invalid params.
func TestMCPPageOf(t *testing.T) {
	list := []int{0, 1, 2, 3, 4, 5, 6}
	var got []int
	cursor, pages := "", 0
	for {
		page, next, err := pageOf(list, cursor, 3)
		if err != nil {
			t.Fatal(err)
		}
		got, pages = append(got, page...), pages+1
		if next == "" {
			break
		}
		cursor = next
	}
	if !slices.Equal(got, list) || pages != 3 {
		t.Fatalf("%d pages: %v", pages, got)
	}
	if page, next, err := pageOf([]int{}, "", 3); err != nil || len(page) != 0 || next != "" {
		t.Fatalf("empty list: %v %q %v", page, next, err)
	}
	for _, bad := range []string{"x", "-1", "8"} {
		if _, _, err := pageOf(list, bad, 3); err == nil || err.(*rpcError).Code != rpcInvalidParams {
			t.Errorf("cursor %q: %v", bad, err)
		}
	}
}
