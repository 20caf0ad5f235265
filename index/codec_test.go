package index

import (
	"bytes"
	"testing"
)

func TestHNSWSnapshotRoundTrip(t *testing.T) {
	vs := clustered(3000, 24, 30, 9)
	h := NewHNSW(HNSWConfig{M: 8, EfConstruction: 64, Seed: 3})
	fill(t, h, vs)
	for i := 0; i < 300; i++ {
		h.Delete(chunkID(i * 7))
	}
	var buf bytes.Buffer
	if _, err := h.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	raw := buf.Bytes()
	h2 := NewHNSW(HNSWConfig{Seed: 3})
	if _, err := h2.ReadFrom(bytes.NewReader(raw)); err != nil {
		t.Fatal(err)
	}
	if h2.Len() != h.Len() || h2.Tombstones() != h.Tombstones() || h2.g.m != 8 {
		t.Fatalf("Len %d/%d Tombstones %d/%d m %d", h2.Len(), h.Len(), h2.Tombstones(), h.Tombstones(), h2.g.m)
	}
	for i := 0; i < len(vs); i += 101 {
		a, _ := h.Search(vs[i], 10, nil)
		b, _ := h2.Search(vs[i], 10, nil)
		if len(a) != len(b) {
			t.Fatalf("query %d: %v vs %v", i, a, b)
		}
		for j := range a {
			if a[j] != b[j] {
				t.Fatalf("query %d: %v vs %v", i, a, b)
			}
		}
	}
	// Writing the loaded graph gives the same bytes.
	var again bytes.Buffer
	h2.WriteTo(&again)
	if !bytes.Equal(raw, again.Bytes()) {
		t.Fatal("re-encoded snapshot differs")
	}
	// The graph stays writable after a load.
	if err := h2.Add("new", vs[1]); err != nil {
		t.Fatal(err)
	}
	// Truncated or corrupted input is rejected and leaves the graph intact.
	for _, bad := range [][]byte{raw[:len(raw)/2], append([]byte("XXXX"), raw[4:]...), raw[:10]} {
		h3 := NewHNSW(HNSWConfig{})
		h3.Add("keep", vs[0])
		if _, err := h3.ReadFrom(bytes.NewReader(bad)); err == nil {
			t.Fatal("bad snapshot accepted")
		}
		if h3.Len() != 1 {
			t.Fatal("failed load changed the graph")
		}
	}
}
