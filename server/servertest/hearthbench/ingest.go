package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/index"
	"github.com/hearth-dev/hearth/providers"
)

// ingestCase is one batch of documents of one format ingested into a new
// memory by a given number of ingestion workers.
type ingestCase struct {
	Format        string // text, markdown, pdf
	Workers       int
	Model         string
	Size, Overlap int // 0: the memory defaults
	Docs, DocSize int
}

// IngestResult is one row of the ingestion table: throughput of the whole
// pipeline from the upload to every document completed (store the upload,
// parse, chunk, embed with an offline fake, write records, index), then
// hybrid retrieval latency through the memory engine on the result.
type IngestResult struct {
	Format     string  `json:"format"`
	Workers    int     `json:"workers"`
	Model      string  `json:"model"`
	ChunkSize  int     `json:"chunk_size"`
	Overlap    int     `json:"chunk_overlap"`
	Docs       int     `json:"docs"`
	MB         float64 `json:"mb"` // uploaded bytes
	Chunks     int     `json:"chunks"`
	Seconds    float64 `json:"seconds"`
	MBps       float64 `json:"mb_per_s"`
	ChunksPerS float64 `json:"chunks_per_s"`
	QueryP50ms float64 `json:"query_p50_ms"`
	QueryP99ms float64 `json:"query_p99_ms"`
}

var formats = map[string]struct{ ext, contentType string }{
	"text":     {".txt", "text/plain"},
	"markdown": {".md", "text/markdown"},
	"pdf":      {".pdf", "application/pdf"},
}

func (c ingestCase) document(i int) []byte {
	v := newVocab(uint64(i + 1))
	switch c.Format {
	case "markdown":
		return []byte(v.markdown(c.DocSize))
	case "pdf":
		return v.pdf(c.DocSize)
	}
	return []byte(v.prose(c.DocSize))
}

func runIngest(c ingestCase, queries int, logf func(string, ...any)) (IngestResult, error) {
	res := IngestResult{Format: c.Format, Workers: c.Workers, Model: c.Model, Docs: c.Docs}
	dir, err := os.MkdirTemp("", "hearthbench-ingest-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	store := blob.New(blob.Options{Dir: filepath.Join(dir, "db"), Logger: quietLogger()})
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
	idx := index.NewManager(store, filepath.Join(dir, "bleve"), index.Options{SnapshotInterval: -1, Logger: quietLogger()})
	if err := idx.Open(ctx); err != nil {
		return res, err
	}
	defer idx.Close()
	svc, err := memory.New(memory.Config{Store: store, Index: idx, Providers: reg, Keysets: keysets, Workers: c.Workers,
		UploadSecret: make([]byte, 32), Logger: quietLogger(), IdleWait: 100 * time.Millisecond})
	if err != nil {
		return res, err
	}
	idx.SetChunkSource(svc)
	if err := svc.Open(ctx); err != nil {
		return res, err
	}
	defer svc.Close()
	req := memory.CreateRequest{Name: "kb", EmbeddingModel: c.Model}
	if c.Size > 0 {
		req.ChunkSize, req.ChunkOverlap = &c.Size, &c.Overlap
	}
	mem, err := svc.Create(ctx, "bench", req)
	if err != nil {
		return res, err
	}
	res.ChunkSize, res.Overlap = mem.ChunkSize, mem.ChunkOverlap
	docs := make([][]byte, c.Docs)
	for i := range docs {
		docs[i] = c.document(i)
		res.MB += float64(len(docs[i])) / (1 << 20)
	}
	f := formats[c.Format]
	start := time.Now()
	for i, doc := range docs {
		t, err := svc.CreateUpload(ctx, "bench", "kb", fmt.Sprintf("doc-%03d%s", i, f.ext), nil)
		if err != nil {
			return res, err
		}
		if _, err := svc.CompleteUpload(ctx, memory.UploadRequest{Token: t.Token, ContentType: f.contentType, Body: bytes.NewReader(doc)}); err != nil {
			return res, err
		}
	}
	for done := false; !done; time.Sleep(2 * time.Millisecond) {
		_, list, err := svc.Documents(ctx, "bench", "kb")
		if err != nil {
			return res, err
		}
		done, res.Chunks = true, 0
		for _, d := range list {
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
	logf("ingest %s, %d workers: %.1f MB, %d chunks in %.1f s", c.Format, c.Workers, res.MB, res.Chunks, res.Seconds)

	v := newVocab(999)
	lat := make([]float64, 0, queries)
	for i := 0; i < queries; i++ {
		q := v.phrase(3 + i%4)
		t0 := time.Now()
		if _, err := svc.Retrieve(ctx, "bench", memory.RetrieveRequest{Query: q, Memories: []memory.MemoryQuery{{Name: "kb"}}, TopK: 10}); err != nil {
			return res, err
		}
		lat = append(lat, float64(time.Since(t0).Microseconds())/1000)
	}
	sort.Float64s(lat)
	res.QueryP50ms, res.QueryP99ms = percentile(lat, 50), percentile(lat, 99)
	return res, nil
}

func ingestCases(quick bool) []ingestCase {
	docs, size := 12, 1<<20
	if quick {
		docs, size = 4, 256<<10
	}
	var out []ingestCase
	for _, format := range []string{"text", "markdown", "pdf"} {
		for _, w := range []int{1, 2} {
			out = append(out, ingestCase{Format: format, Workers: w, Model: "hearth:hash-embed", Docs: docs, DocSize: size})
		}
	}
	// Small chunks: ten times the chunks (and embeddings) for the same text.
	out = append(out, ingestCase{Format: "text", Workers: 2, Model: "hearth:hash-embed", Size: 1000, Overlap: 100, Docs: docs, DocSize: size})
	return out
}

func printIngest(w io.Writer, rs []IngestResult) {
	fmt.Fprintln(w, "\nIngestion: upload to every document completed (store, parse, chunk, embed with the offline hearth:hash-embed, store")
	fmt.Fprintln(w, "chunks, index), through the memory engine on a Badger data dir; then retrieval (hybrid, top 10) on the result.")
	fmt.Fprintln(w, "MB counts the uploaded files.")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "format\tworkers\tchunk\toverlap\tdocs\tMB\tchunks\ts\tMB/s\tchunks/s\tquery p50 ms\tquery p99 ms\t")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%.1f\t%d\t%.1f\t%.2f\t%.0f\t%.2f\t%.2f\t\n", r.Format, r.Workers, r.ChunkSize, r.Overlap,
			r.Docs, r.MB, r.Chunks, r.Seconds, r.MBps, r.ChunksPerS, r.QueryP50ms, r.QueryP99ms)
	}
	tw.Flush()
}
