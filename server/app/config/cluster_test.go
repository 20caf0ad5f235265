package config

import "testing"

// TestHeapFloor: HEARTH_GC_HEAP_FLOOR's 0 means 64 MiB on a cluster node
// and none on the embedded store; -1 is none, a size is itself.
func TestHeapFloor(t *testing.T) {
	cases := []struct {
		url   string
		floor int64
		want  int64
	}{
		{"", 0, 0},
		{"postgres://db/hearth", 0, DefaultGCHeapFloor},
		{"postgres://db/hearth", -1, 0},
		{"", 32 << 20, 32 << 20},
		{"postgres://db/hearth", 128 << 20, 128 << 20},
	}
	for _, c := range cases {
		cfg := Config{DatabaseURL: c.url, GCHeapFloor: c.floor}
		if got := cfg.HeapFloor(); got != c.want {
			t.Errorf("HeapFloor(url %q, floor %d) = %d, want %d", c.url, c.floor, got, c.want)
		}
	}
}
