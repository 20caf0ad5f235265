package server

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkShare measures a slot taken and given back: with free slots
// (the path of every request below MaxConcurrent), one key or a key per
// goroutine, and under contention (8 slots for every goroutine's
// requests, so most of them wait and are handed a slot).
func BenchmarkShare(b *testing.B) {
	ctx := context.Background()
	key := shareID{id: "key_abcdefghijklmnop"}
	b.Run("free/serial", func(b *testing.B) {
		s := newShare(512, 1024, time.Minute, 0, 0)
		for b.Loop() {
			c, _ := s.acquire(ctx, key)
			s.release(c)
		}
	})
	b.Run("free/parallel-one-key", func(b *testing.B) {
		s := newShare(512, 1024, time.Minute, 0, 0)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				c, _ := s.acquire(ctx, key)
				s.release(c)
			}
		})
	})
	b.Run("free/parallel-key-each", func(b *testing.B) {
		s := newShare(512, 1024, time.Minute, 0, 0)
		var n atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			id := shareID{id: "key_" + strconv.FormatInt(n.Add(1), 10)}
			for pb.Next() {
				c, _ := s.acquire(ctx, id)
				s.release(c)
			}
		})
	})
	b.Run("contended", func(b *testing.B) {
		s := newShare(8, 1<<20, time.Minute, 0, 0)
		var n atomic.Int64
		b.SetParallelism(16)
		b.RunParallel(func(pb *testing.PB) {
			id := shareID{id: "key_" + strconv.FormatInt(n.Add(1)%4, 10)}
			for pb.Next() {
				c, a := s.acquire(ctx, id)
				if a == admitted {
					s.release(c)
				}
			}
		})
	})
}
