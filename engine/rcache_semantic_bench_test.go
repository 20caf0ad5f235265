package engine_test

import (
	"context"
	"math/rand"
	"strconv"
	"testing"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/index"
)

// BenchmarkResponseCacheSemantic measures a semantic hit and a semantic
// miss (an exact miss, one in-process embedding and a search of the
// semantic index, filtered to the caller's scope) with 768-dimension
// vectors on an on-disk store, for a scope of n entries beside as many
// entries of other tenants.
func BenchmarkResponseCacheSemantic(b *testing.B) {
	for _, n := range []int{64, 2048} {
		b.Run("entries="+strconv.Itoa(2*n), func(b *testing.B) { benchSemantic(b, n) })
	}
}

func benchSemantic(b *testing.B, n int) {
	const dims = 768
	rng := rand.New(rand.NewSource(1))
	vecs := map[string][]float32{}
	for i := 0; i < n; i++ {
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
	r := newSemRigIdx(b, s, engine.ResponseCacheConfig{}, vecs, index.Options{}, nil)
	r.emb.dims = dims
	for _, owner := range []string{"bob", "alice"} {
		ctx, _ := engine.WithCacheTicket(context.Background(), owner, engine.CacheOn)
		for i := 0; i < n; i++ {
			if _, err := r.model.Chat(ctx, userReq("question "+strconv.Itoa(i))); err != nil {
				b.Fatal(err)
			}
		}
	}
	// A hit repeats one paraphrase; a miss asks a new question each time
	// (its own random vector), which also stores and indexes its answer.
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
		})
	}
}
