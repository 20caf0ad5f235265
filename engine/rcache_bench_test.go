package engine_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
)

// benchCacheRig is a cache on an on-disk Badger store, as hearth serve runs it.
func benchCacheRig(b *testing.B, maxEntries int) *cacheRig {
	b.Helper()
	s := blob.New(blob.Options{Dir: b.TempDir()})
	if err := s.Open(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return newCacheRigOn(b, s, engine.ResponseCacheConfig{MaxEntries: maxEntries})
}

// benchQuestion is a request of a realistic size (a system prompt and a
// question of a few hundred bytes).
func benchQuestion(i int) *engine.ChatRequest {
	req := userReq("Question " + strconv.Itoa(i) + ": " + strings.Repeat("how does the response cache behave? ", 8))
	req.Messages = append([]engine.Message{{Role: "system", Content: engine.TextContent(strings.Repeat("You answer briefly. ", 20))}}, req.Messages...)
	return req
}

// BenchmarkResponseCache compares a miss (the model is called and the
// answer stored) with a hit (served from the hot copy, and from the store
// when the hot copies are cold), non-stream and stream.
func BenchmarkResponseCache(b *testing.B) {
	ctx, _ := engine.WithCacheTicket(context.Background(), "alice", engine.CacheOn)
	b.Run("miss", func(b *testing.B) {
		r := benchCacheRig(b, 1<<30)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := r.model.Chat(ctx, benchQuestion(i)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("hit", func(b *testing.B) {
		r := benchCacheRig(b, 1<<30)
		req := benchQuestion(0)
		if _, err := r.model.Chat(ctx, req); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := r.model.Chat(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
		if r.up.calls.Load() != 1 {
			b.Fatalf("%d upstream calls, want 1", r.up.calls.Load())
		}
	})
	b.Run("stream-miss", func(b *testing.B) {
		r := benchCacheRig(b, 1<<30)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			st, err := r.model.ChatStream(ctx, benchQuestion(i))
			if err != nil {
				b.Fatal(err)
			}
			drain(b, st)
		}
	})
	b.Run("stream-hit", func(b *testing.B) {
		r := benchCacheRig(b, 1<<30)
		req := benchQuestion(0)
		st, err := r.model.ChatStream(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		drain(b, st)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			st, err := r.model.ChatStream(ctx, req)
			if err != nil {
				b.Fatal(err)
			}
			drain(b, st)
		}
	})
}

func drain(b *testing.B, st engine.ChatStream) {
	for {
		if _, err := st.Recv(); err != nil {
			return
		}
	}
}

// BenchmarkResponseCacheFull fills a cache to its cap of 10000 entries and
// reports the process's resident memory and Go heap with it full, then
// measures hits spread over every entry (most from the store, as the hot
// copies hold what was read last).
func BenchmarkResponseCacheFull(b *testing.B) {
	const entries = 10000
	ctx, _ := engine.WithCacheTicket(context.Background(), "alice", engine.CacheOn)
	r := benchCacheRig(b, entries)
	rssBefore := rssBytes()
	for i := 0; i < entries; i++ {
		if _, err := r.model.Chat(ctx, benchQuestion(i)); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if n, err := r.cache.Len(context.Background()); err != nil || n != entries {
		b.Fatalf("%d entries (err %v), want %d", n, err, entries)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.model.Chat(ctx, benchQuestion(i%entries)); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if calls := r.up.calls.Load(); calls != entries {
		b.Fatalf("%d upstream calls, want %d (every timed call a hit)", calls, entries)
	}
	b.ReportMetric(float64(rssBytes())/(1<<20), "rss-MB")
	b.ReportMetric(float64(rssBytes()-rssBefore)/(1<<20), "rss-growth-MB")
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MB")
}

// rssBytes is the process's resident set (Linux /proc; 0 elsewhere).
func rssBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	var size, rss int64
	if _, err := fmt.Sscan(string(b), &size, &rss); err != nil {
		return 0
	}
	return rss * int64(os.Getpagesize())
}
