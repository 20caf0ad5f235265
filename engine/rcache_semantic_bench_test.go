package engine_test

import (
	"context"
	"runtime"
	"strconv"
	"testing"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/index"
)

// BenchmarkResponseCacheSemantic measures a semantic hit and a semantic
// miss with 768-dimension vectors on an on-disk store: an exact miss, one
// in-process embedding and a search of the semantic index filtered to the
// caller's scope (64 entries), beside the entries of 100 other tenants;
// it reports the process's resident memory and Go heap once the entries
// are stored (10000 in all: the default cap, full).
func BenchmarkResponseCacheSemantic(b *testing.B) {
	for _, total := range []int{128, engine.DefaultCacheMaxEntries} {
		b.Run("entries="+strconv.Itoa(total), func(b *testing.B) { benchSemantic(b, 64, total-64) })
	}
}

func benchSemantic(b *testing.B, scope, others int) {
	const dims = 768
	s := blob.New(blob.Options{Dir: b.TempDir()})
	if err := s.Open(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	r := newSemRigIdx(b, s, engine.ResponseCacheConfig{}, map[string][]float32{}, index.Options{}, nil)
	r.emb.dims = dims
	q0, err := r.emb.Embed(context.Background(), &engine.EmbedRequest{Inputs: []string{"question 0"}})
	if err != nil {
		b.Fatal(err)
	}
	para := q0[0]
	para[0] += 0.05
	r.emb.vecs["a paraphrase of question 0"] = para
	ask := func(owner, q string) {
		ctx, _ := engine.WithCacheTicket(context.Background(), owner, engine.CacheOn)
		if _, err := r.model.Chat(ctx, userReq(q)); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < others; i++ {
		ask("tenant "+strconv.Itoa(i%100), "question "+strconv.Itoa(i))
	}
	for i := 0; i < scope; i++ {
		ask("alice", "question "+strconv.Itoa(i))
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rss, heap := float64(rssBytes())/(1<<20), float64(ms.HeapInuse)/(1<<20)
	// A hit repeats one paraphrase; a miss asks a new question each time
	// (a random vector of its own), which also stores and indexes its answer.
	for _, c := range []struct {
		name, want string
		q          func(i int) string
	}{
		{"hit", engine.CacheMatchSemantic, func(int) string { return "a paraphrase of question 0" }},
		{"miss", "", func(i int) string { return "an unrelated question " + strconv.Itoa(i) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx, tk := engine.WithCacheTicket(context.Background(), "alice", engine.CacheOn)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := r.model.Chat(ctx, userReq(c.q(i))); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if m, _ := tk.Match(); m != c.want {
				b.Fatalf("match %q, want %q", m, c.want)
			}
			b.ReportMetric(rss, "rss-MB")
			b.ReportMetric(heap, "heap-MB")
		})
	}
}
