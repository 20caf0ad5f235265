package storetest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

func testBlobRoundTrip(t *testing.T, s engine.Store) {
	ctx := context.Background()
	// Several MiB: an incompressible half and a compressible half, not a
	// multiple of any part size.
	big := make([]byte, 5<<20+123)
	rng := rand.NewChaCha8([32]byte{1})
	rng.Read(big[:3<<20])
	for i := 3 << 20; i < len(big); i++ {
		big[i] = byte(i % 7)
	}
	n, err := s.PutBlob(ctx, "doc1", bytes.NewReader(big))
	must(t, err)
	if n != int64(len(big)) {
		t.Fatalf("PutBlob size %d, want %d", n, len(big))
	}
	_, err = s.PutBlob(ctx, "doc10", bytes.NewReader([]byte("neighbour")))
	must(t, err)
	got, err := s.GetBlob(ctx, "doc1")
	must(t, err)
	if !bytes.Equal(got, big) {
		t.Fatalf("blob differs: %d bytes back, %d written", len(got), len(big))
	}
	_, err = s.PutBlob(ctx, "doc1", bytes.NewReader([]byte("small")))
	must(t, err)
	if got, err = s.GetBlob(ctx, "doc1"); err != nil || string(got) != "small" {
		t.Fatalf("replaced blob = %q, %v", got, err)
	}
	must(t, s.DeleteBlob(ctx, "doc1"))
	if _, err := s.GetBlob(ctx, "doc1"); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("GetBlob after delete: %v", err)
	}
	must(t, s.DeleteBlob(ctx, "doc1"))
	if got, err = s.GetBlob(ctx, "doc10"); err != nil || string(got) != "neighbour" {
		t.Fatalf("a neighbouring blob = %q, %v", got, err)
	}
}

func testBlobEmptyAndMissing(t *testing.T, s engine.Store) {
	ctx := context.Background()
	if _, err := s.GetBlob(ctx, "missing"); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("GetBlob of a missing id: %v", err)
	}
	must(t, s.DeleteBlob(ctx, "missing"))
	n, err := s.PutBlob(ctx, "empty", bytes.NewReader(nil))
	must(t, err)
	got, err := s.GetBlob(ctx, "empty")
	if err != nil || n != 0 || len(got) != 0 {
		t.Fatalf("empty blob: size %d, read %d bytes, %v", n, len(got), err)
	}
}

// failingReader yields n bytes and then fails.
type failingReader struct{ n int }

var errRead = errors.New("upload interrupted")

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, errRead
	}
	k := min(len(p), r.n)
	for i := range p[:k] {
		p[i] = 'x'
	}
	r.n -= k
	return k, nil
}

// testBlobFailedWrite interrupts uploads after some MiB: the blob must then
// read as absent or as its previous bytes, never as the partial upload.
func testBlobFailedWrite(t *testing.T, s engine.Store) {
	ctx := context.Background()
	_, err := s.PutBlob(ctx, "b", bytes.NewReader([]byte("old")))
	must(t, err)
	if _, err := s.PutBlob(ctx, "b", &failingReader{n: 3 << 20}); !errors.Is(err, errRead) {
		t.Fatalf("PutBlob with a failing reader: %v, want the read error", err)
	}
	if got, err := s.GetBlob(ctx, "b"); err == nil && string(got) != "old" {
		t.Fatalf("after a failed replace the blob reads as %d bytes of the partial upload", len(got))
	} else if err != nil && !errors.Is(err, engine.ErrNotFound) {
		t.Fatal(err)
	}
	if _, err := s.PutBlob(ctx, "c", io.MultiReader(bytes.NewReader([]byte("head")), &failingReader{n: 1 << 20})); !errors.Is(err, errRead) {
		t.Fatalf("PutBlob with a failing reader: %v, want the read error", err)
	}
	if got, err := s.GetBlob(ctx, "c"); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("a failed new blob reads as %d bytes, %v; want ErrNotFound", len(got), err)
	}
}

// testListBlobs checks engine.BlobLister on stores that implement it: every
// blob once, in bytewise id order, none of the records, the after cursor
// and ErrStopScan.
func testListBlobs(t *testing.T, s engine.Store) {
	l, ok := s.(engine.BlobLister)
	if !ok {
		t.Skip("the store does not list blobs")
	}
	ctx := context.Background()
	put(t, s, "blob/not-a-blob", "1", "a", "2")
	ids := []string{"m1/tA", "m1/t_", "m1/t-", "m2/tB", "z"}
	for _, id := range ids {
		_, err := s.PutBlob(ctx, id, bytes.NewReader(bytes.Repeat([]byte(id), 1000)))
		must(t, err)
	}
	list := func(after string, stop int) []string {
		var got []string
		must(t, l.ListBlobs(ctx, after, func(id string) error {
			got = append(got, id)
			if len(got) == stop {
				return engine.ErrStopScan
			}
			return nil
		}))
		return got
	}
	want := []string{"m1/t-", "m1/tA", "m1/t_", "m2/tB", "z"} // bytewise: '-' < 'A' < '_'
	if got := list("", 0); !slices.Equal(got, want) {
		t.Fatalf("ListBlobs = %q, want %q", got, want)
	}
	if got := list("m1/tA", 0); !slices.Equal(got, want[2:]) {
		t.Fatalf("ListBlobs after m1/tA = %q, want %q", got, want[2:])
	}
	if got := list("", 2); !slices.Equal(got, want[:2]) {
		t.Fatalf("ListBlobs stopped after 2 = %q", got)
	}
	must(t, s.DeleteBlob(ctx, "m1/tA"))
	if got := list("", 0); !slices.Equal(got, []string{"m1/t-", "m1/t_", "m2/tB", "z"}) {
		t.Fatalf("ListBlobs after a delete = %q", got)
	}
}
