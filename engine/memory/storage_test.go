//go:build linux

package memory

import (
	"context"
	"io"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/index"
	"github.com/hearth-dev/hearth/providers"
)

// randEmbedder returns random vectors of a fixed dimension: the storage
// cost of real embeddings without a provider.
type randEmbedder struct{ dim int }

func (e randEmbedder) Embed(_ context.Context, req *engine.EmbedRequest) ([][]float32, error) {
	out := make([][]float32, len(req.Inputs))
	for i := range out {
		v := make([]float32, e.dim)
		for j := range v {
			v[j] = rand.Float32() - 0.5
		}
		out[i] = v
	}
	return out, nil
}

func (randEmbedder) MaxBatch() int { return 256 }

// dimProviders adds the keyless provider "dim" (model: the dimension).
type dimProviders struct{ engine.Providers }

func (p dimProviders) Embedder(ref engine.ModelRef) (engine.Embedder, error) {
	if ref.Provider == "dim" {
		n, err := strconv.Atoi(ref.Model)
		if err != nil {
			return nil, err
		}
		return randEmbedder{n}, nil
	}
	return p.Providers.Embedder(ref)
}

func (p dimProviders) NeedsKey(provider string) bool {
	return provider != "dim" && p.Providers.NeedsKey(provider)
}

// TestStorageReport ingests a memory of 10k chunks with 1536-d vectors
// (the size of text-embedding-3-small) into a Badger store and reports
// what each key prefix holds and what the data dir takes on disk. It is a
// measurement, not a check: run it with HEARTH_STORAGE_REPORT=1 and -v.
func TestStorageReport(t *testing.T) {
	if os.Getenv("HEARTH_STORAGE_REPORT") == "" {
		t.Skip("set HEARTH_STORAGE_REPORT=1 to measure")
	}
	ctx := context.Background()
	dir := t.TempDir()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	store := blob.New(blob.Options{Dir: filepath.Join(dir, "db"), Logger: quiet})
	if err := store.Open(); err != nil {
		t.Fatal(err)
	}
	reg, err := providers.New(providers.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ks, err := engine.NewKeysets(store, reg, []byte("memory-test-secret-32-bytes-long"))
	if err != nil {
		t.Fatal(err)
	}
	idx := index.NewManager(store, filepath.Join(dir, "bleve"), index.Options{SnapshotInterval: -1, Logger: quiet,
		HNSW: index.HNSWConfig{EfConstruction: 64}})
	if err := idx.Open(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Store: store, Index: idx, Providers: dimProviders{reg}, Keysets: ks,
		UploadSecret: []byte(strings.Repeat("s", 32)), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, "ann", CreateRequest{Name: "kb", EmbeddingModel: "dim:1536", ChunkSize: ptr(500), ChunkOverlap: ptr(0)}); err != nil {
		t.Fatal(err)
	}
	chunks := 0
	for i := 0; chunks < 10000; i++ {
		chunks += ingestDoc(t, s, "ann", "kb", "doc-"+strconv.Itoa(i)+".txt", synthText(uint64(i+2), 1<<20)).Live.Chunks
	}
	s.Close()
	idx.Close()
	type usage struct{ keys, bytes int }
	by := map[string]*usage{}
	err = store.View(ctx, func(tx engine.Tx) error {
		return tx.Scan("", "", func(k string, v []byte) error {
			p := prefixClass(k)
			if by[p] == nil {
				by[p] = &usage{}
			}
			by[p].keys++
			by[p].bytes += len(k) + len(v)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	store.Close()
	t.Logf("%d chunks of 1536-d vectors", chunks)
	for p, u := range by {
		t.Logf("%-12s %7d keys %10.1f MB", p, u.keys, float64(u.bytes)/1e6)
	}
	t.Logf("badger dir on disk: %.1f MB", float64(diskUsage(t, filepath.Join(dir, "db")))/1e6)
}

// prefixClass names the part of the key schema a key belongs to.
func prefixClass(k string) string {
	first, rest, _ := strings.Cut(k, "/")
	if first == "idx" {
		_, rest, _ = strings.Cut(rest, "/")
		kind, _, _ := strings.Cut(rest, "/")
		return "idx/*/" + kind
	}
	return first + "/"
}

// diskUsage sums the allocated blocks of the files under dir.
func diskUsage(t *testing.T, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			n += st.Blocks * 512
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
