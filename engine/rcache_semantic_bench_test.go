package engine_test

import (
	"context"
	"math/rand"
	"strconv"
	"testing"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
)

// BenchmarkResponseCacheSemantic measures a semantic hit: an exact miss,
// one (in-process) embedding, and the brute-force search of a full bucket
// of 768-dimension vectors on an on-disk store.
func BenchmarkResponseCacheSemantic(b *testing.B) {
	const dims = 768
	rng := rand.New(rand.NewSource(1))
	vecs := map[string][]float32{}
	for i := 0; i < engine.CacheSemanticBucketMax; i++ {
		v := make([]float32, dims)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		vecs["question "+strconv.Itoa(i)] = v
	}
	para := append([]float32(nil), vecs["question 0"]...)
	para[0] += 0.05
	vecs["a paraphrase of question 0"] = para
	s := blob.New(blob.Options{Dir: b.TempDir()})
	if err := s.Open(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	r := newSemRigOn(b, s, engine.ResponseCacheConfig{}, vecs)
	ctx, tk := engine.WithCacheTicket(context.Background(), "alice", engine.CacheOn)
	for i := 0; i < engine.CacheSemanticBucketMax; i++ {
		if _, err := r.model.Chat(ctx, userReq("question "+strconv.Itoa(i))); err != nil {
			b.Fatal(err)
		}
	}
	req := userReq("a paraphrase of question 0")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.model.Chat(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if m, _ := tk.Match(); m != engine.CacheMatchSemantic || r.up.calls.Load() != engine.CacheSemanticBucketMax {
		b.Fatalf("match %q, %d upstream calls", m, r.up.calls.Load())
	}
}
