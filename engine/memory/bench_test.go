package memory

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"
)

// synthText returns about n bytes of prose-like text: Zipf-distributed
// words from a 5000-word vocabulary, in sentences and paragraphs.
func synthText(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 1))
	zipf := rand.NewZipf(r, 1.1, 1, 4999)
	var b strings.Builder
	for b.Len() < n {
		for s := 0; s < 4+r.IntN(4); s++ {
			words := 6 + r.IntN(14)
			for w := 0; w < words; w++ {
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

// ingestDoc uploads text as a document and waits for it to complete.
func ingestDoc(tb testing.TB, s *Service, owner, mem, name, text string) *Document {
	tb.Helper()
	ctx := context.Background()
	t, err := s.CreateUpload(ctx, owner, mem, name, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := s.CompleteUpload(ctx, UploadRequest{Token: t.Token, ContentType: "text/plain", Body: strings.NewReader(text)}); err != nil {
		tb.Fatal(err)
	}
	for {
		_, d, err := s.Document(ctx, owner, mem, name)
		if err != nil {
			tb.Fatal(err)
		}
		switch d.Status {
		case StatusCompleted:
			return d
		case StatusFailed:
			tb.Fatalf("%s failed: %s", name, d.StatusMessage)
		}
		time.Sleep(time.Millisecond)
	}
}

// BenchmarkIngest measures ingestion throughput of 1 MB text documents
// with the offline hash embedder (so the numbers are Hearth's own cost:
// parse, chunk, store, index), chunk_size 1000, overlap 100.
func BenchmarkIngest(b *testing.B) {
	s := newTestService(b, nil)
	ctx := context.Background()
	if _, err := s.Create(ctx, "ann", CreateRequest{Name: "kb", EmbeddingModel: "hearth:hash-embed", ChunkSize: ptr(1000), ChunkOverlap: ptr(100)}); err != nil {
		b.Fatal(err)
	}
	text := synthText(1, 1<<20)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	chunks := 0
	start := time.Now()
	for i := 0; i < b.N; i++ {
		d := ingestDoc(b, s, "ann", "kb", fmt.Sprintf("doc-%d.txt", i), text)
		chunks += d.Live.Chunks
	}
	b.ReportMetric(float64(chunks)/time.Since(start).Seconds(), "chunks/s")
}

// BenchmarkRetrieve measures hybrid retrieval latency (embed the query,
// vector and keyword search, fuse, load texts) on a memory of about 10k
// chunks, reporting p50 and p99.
func BenchmarkRetrieve(b *testing.B) {
	s := newTestService(b, nil)
	ctx := context.Background()
	if _, err := s.Create(ctx, "ann", CreateRequest{Name: "kb", EmbeddingModel: "hearth:hash-embed", ChunkSize: ptr(500), ChunkOverlap: ptr(0)}); err != nil {
		b.Fatal(err)
	}
	chunks := 0
	for i := 0; chunks < 10000; i++ {
		chunks += ingestDoc(b, s, "ann", "kb", fmt.Sprintf("doc-%d.txt", i), synthText(uint64(i+2), 1<<20)).Live.Chunks
	}
	queries := strings.Split(synthText(99, 64<<10), ". ")
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		res, err := s.Retrieve(ctx, "ann", RetrieveRequest{Query: queries[i%len(queries)], Memories: []MemoryQuery{{Name: "kb"}}, TopK: 10})
		if err != nil || len(res) == 0 {
			b.Fatalf("retrieve: %v %d", err, len(res))
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(chunks), "chunks")
}

func ptr(n int) *int { return &n }
