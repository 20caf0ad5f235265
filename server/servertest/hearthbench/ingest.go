package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/index"
	"github.com/hearth-dev/hearth/providers"
)

// ingestCase is one memory configuration to ingest documents into.
type ingestCase struct {
	Model          string
	Size, Overlap  int
	Docs, DocBytes int
}

// IngestResult is one row of the ingestion table: throughput of the whole
// pipeline (store the upload, parse, chunk, embed with an offline fake,
// write records, index), then hybrid retrieval latency on the result.
type IngestResult struct {
	Model      string  `json:"model"`
	ChunkSize  int     `json:"chunk_size"`
	Overlap    int     `json:"chunk_overlap"`
	MB         float64 `json:"mb"`
	Chunks     int     `json:"chunks"`
	Seconds    float64 `json:"seconds"`
	MBps       float64 `json:"mb_per_s"`
	ChunksPerS float64 `json:"chunks_per_s"`
	QueryP50ms float64 `json:"query_p50_ms"`
	QueryP99ms float64 `json:"query_p99_ms"`
}

// proseText returns about n bytes of prose-like text: Zipf-distributed
// words of a 5000-word vocabulary, in sentences and paragraphs.
func proseText(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 7))
	zipf := rand.NewZipf(r, 1.1, 1, 4999)
	var b strings.Builder
	for b.Len() < n {
		for s := 0; s < 4+r.IntN(4); s++ {
			for w, words := 0, 6+r.IntN(14); w < words; w++ {
				if w > 0 {
					b.WriteByte(' ')
				}
				fmt.Fprintf(&b, "w%x", zipf.Uint64())
			}
			b.WriteString(". ")
		}
		b.WriteString("\n\n")
	}
	return b.String()
}

func runIngest(c ingestCase, queries int, logf func(string, ...any)) (IngestResult, error) {
	res := IngestResult{Model: c.Model, ChunkSize: c.Size, Overlap: c.Overlap}
	dir, err := os.MkdirTemp("", "hearthbench-ingest-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	store := blob.New(blob.Options{Dir: filepath.Join(dir, "db"), Logger: quiet})
	if err := store.Open(); err != nil {
		return res, err
	}
	defer store.Close()
	reg, err := providers.New(providers.Config{})
	if err != nil {
		return res, err
	}
	keysets, err := engine.NewKeysets(store, reg, make([]byte, 32))
	if err != nil {
		return res, err
	}
	ctx := context.Background()
	idx := index.NewManager(store, filepath.Join(dir, "bleve"), index.Options{SnapshotInterval: -1, Logger: quiet})
	if err := idx.Open(ctx); err != nil {
		return res, err
	}
	defer idx.Close()
	svc, err := memory.New(memory.Config{Store: store, Index: idx, Providers: reg, Keysets: keysets,
		UploadSecret: make([]byte, 32), Logger: quiet, IdleWait: 100 * time.Millisecond})
	if err != nil {
		return res, err
	}
	if err := svc.Open(ctx); err != nil {
		return res, err
	}
	defer svc.Close()
	if _, err := svc.Create(ctx, "bench", memory.CreateRequest{Name: "kb", EmbeddingModel: c.Model, ChunkSize: &c.Size, ChunkOverlap: &c.Overlap}); err != nil {
		return res, err
	}
	texts := make([]string, c.Docs)
	for i := range texts {
		texts[i] = proseText(uint64(i+1), c.DocBytes)
		res.MB += float64(len(texts[i])) / (1 << 20)
	}
	start := time.Now()
	for i, text := range texts {
		t, err := svc.CreateUpload(ctx, "bench", "kb", fmt.Sprintf("doc-%03d.txt", i), nil)
		if err != nil {
			return res, err
		}
		if _, err := svc.CompleteUpload(ctx, memory.UploadRequest{Token: t.Token, ContentType: "text/plain", Body: strings.NewReader(text)}); err != nil {
			return res, err
		}
	}
	for done := false; !done; time.Sleep(2 * time.Millisecond) {
		_, docs, err := svc.Documents(ctx, "bench", "kb")
		if err != nil {
			return res, err
		}
		done, res.Chunks = true, 0
		for _, d := range docs {
			switch d.Status {
			case memory.StatusFailed:
				return res, fmt.Errorf("%s failed: %s", d.Name, d.StatusMessage)
			case memory.StatusCompleted:
				res.Chunks += d.Live.Chunks
			default:
				done = false
			}
		}
	}
	res.Seconds = time.Since(start).Seconds()
	res.MBps, res.ChunksPerS = res.MB/res.Seconds, float64(res.Chunks)/res.Seconds
	logf("ingest %s %d/%d: %.1f MB, %d chunks in %.1f s", c.Model, c.Size, c.Overlap, res.MB, res.Chunks, res.Seconds)

	qs := strings.Split(proseText(999, 256<<10), ". ")
	lat := make([]float64, 0, queries)
	for i := 0; i < queries; i++ {
		t0 := time.Now()
		if _, err := svc.Retrieve(ctx, "bench", memory.RetrieveRequest{Query: qs[i%len(qs)], Memories: []memory.MemoryQuery{{Name: "kb"}}, TopK: 10}); err != nil {
			return res, err
		}
		lat = append(lat, float64(time.Since(t0).Microseconds())/1000)
	}
	sort.Float64s(lat)
	res.QueryP50ms, res.QueryP99ms = percentile(lat, 50), percentile(lat, 99)
	return res, nil
}

func ingestCases(quick bool) []ingestCase {
	if quick {
		return []ingestCase{
			{Model: "hearth:hash-embed", Size: 1000, Overlap: 100, Docs: 2, DocBytes: 1 << 20},
			{Model: "hearth:bm25", Size: 1000, Overlap: 100, Docs: 2, DocBytes: 1 << 20},
		}
	}
	return []ingestCase{
		{Model: "hearth:hash-embed", Size: 1000, Overlap: 100, Docs: 8, DocBytes: 1 << 20},
		{Model: "hearth:hash-embed", Size: 10000, Overlap: 2048, Docs: 8, DocBytes: 1 << 20},
		{Model: "hearth:bm25", Size: 1000, Overlap: 100, Docs: 8, DocBytes: 1 << 20},
	}
}

func printIngest(w io.Writer, rs []IngestResult) {
	fmt.Fprintln(w, "\nIngestion (offline fake embedder; parse, chunk, embed, store, index) and hybrid retrieval through the memory engine")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "model\tchunk\toverlap\tMB\tchunks\ts\tMB/s\tchunks/s\tquery p50 ms\tquery p99 ms\t")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t%d\t%.1f\t%.2f\t%.0f\t%.2f\t%.2f\t\n", r.Model, r.ChunkSize, r.Overlap, r.MB, r.Chunks, r.Seconds, r.MBps, r.ChunksPerS, r.QueryP50ms, r.QueryP99ms)
	}
	tw.Flush()
}
