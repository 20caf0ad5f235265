package blob

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/klauspost/compress/zstd"
)

// partText is about two and a half parts of markdown-like text.
func partText() []byte {
	var b strings.Builder
	for i := 0; b.Len() < 5*partSize/2; i++ {
		fmt.Fprintf(&b, "## Section %d\n\nThe otters' dens, e.g. %d km from the river: see [notes](https://example.com/%d).\n\n", i, i%97, i)
	}
	return []byte(b.String())
}

// readPart returns the stored bytes of part n of blob id.
func readPart(t *testing.T, s *Store, id string, n int) []byte {
	t.Helper()
	var out []byte
	must(t, s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get([]byte(blobPartKey(id, n)))
		if err != nil {
			return err
		}
		out, err = item.ValueCopy(nil)
		return err
	}))
	return out
}

// TestBlobPartsAtPartLevel: stored parts are zstd frames at PartLevel that
// any zstd reader decodes (an older Hearth reads them), and parts written
// at SpeedDefault, as before, read back unchanged.
func TestBlobPartsAtPartLevel(t *testing.T) {
	ctx := context.Background()
	s := openT(t, Options{Dir: t.TempDir()})
	text := partText()
	_, err := s.PutBlob(ctx, "new", bytes.NewReader(text))
	must(t, err)

	fastest, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	def, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	plain, _ := zstd.NewReader(nil)
	defer plain.Close()
	var parts [][]byte
	for rest := text; len(rest) > 0; rest = rest[min(len(rest), partSize):] {
		parts = append(parts, rest[:min(len(rest), partSize)])
	}
	if len(parts) != 3 {
		t.Fatalf("%d parts", len(parts))
	}
	for n, p := range parts {
		stored := readPart(t, s, "new", n)
		if !bytes.Equal(stored, fastest.EncodeAll(p, nil)) {
			t.Fatalf("part %d is not the SpeedFastest frame of its bytes", n)
		}
		if got, err := plain.DecodeAll(stored, nil); err != nil || !bytes.Equal(got, p) {
			t.Fatalf("part %d with a plain zstd reader: %v", n, err)
		}
	}

	// A blob stored by an earlier Hearth: the same keys, SpeedDefault parts.
	_, err = s.PutBlob(ctx, "old", bytes.NewReader(text))
	must(t, err)
	must(t, s.db.Update(func(txn *badger.Txn) error {
		for n, p := range parts {
			if err := txn.Set([]byte(blobPartKey("old", n)), def.EncodeAll(p, nil)); err != nil {
				return err
			}
		}
		return nil
	}))
	if bytes.Equal(readPart(t, s, "old", 0), readPart(t, s, "new", 0)) {
		t.Fatal("the two levels wrote the same frame; the test reads nothing old")
	}
	got, err := s.GetBlob(ctx, "old")
	must(t, err)
	if !bytes.Equal(got, text) {
		t.Fatal("a blob of SpeedDefault parts reads back changed")
	}
}
