package index

import (
	"reflect"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

func TestChangeRoundTrip(t *testing.T) {
	c := &change{
		seq:    7,
		vecPut: []string{"a", "b"},
		vecs:   [][]float32{{0.6, 0.8}, {1, 0}},
		vecDel: []string{"c"},
		kwPut:  []engine.IndexedChunk{{ID: "a", Text: "héllo wörld"}, {ID: "b", Text: ""}},
		kwDel:  []string{"c", "d"},
	}
	b := c.encode()
	got, err := decodeChange(7, b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, c) {
		t.Fatalf("round trip: %+v, want %+v", got, c)
	}
	for n := range len(b) {
		if _, err := decodeChange(7, b[:n]); err == nil {
			t.Fatalf("a change cut to %d of %d bytes decoded", n, len(b))
		}
	}
	if _, err := decodeChange(7, append(b, 0)); err == nil {
		t.Fatal("trailing bytes accepted")
	}
}

// FuzzDecodeChange: arbitrary log bytes (a damaged entry) give an error,
// never a panic or a huge allocation.
func FuzzDecodeChange(f *testing.F) {
	f.Add((&change{vecPut: []string{"x"}, vecs: [][]float32{{1}}, kwDel: []string{"y"}}).encode())
	f.Add([]byte{changeFormat, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := decodeChange(1, b)
		if err == nil && !reflect.DeepEqual(c.encode(), b) {
			t.Fatalf("decoded %x does not encode back", b)
		}
	})
}
