package engine

import (
	"context"
	"testing"
	"time"
)

func TestLocalTryLock(t *testing.T) {
	var l Local
	ctx := context.Background()
	release, ok, err := l.TryLock(ctx, "sweep")
	if err != nil || !ok {
		t.Fatalf("first TryLock: ok=%v err=%v", ok, err)
	}
	if _, ok, _ := l.TryLock(ctx, "sweep"); ok {
		t.Fatal("a held lock was taken twice")
	}
	if _, ok, _ := l.TryLock(ctx, "other"); !ok {
		t.Fatal("an unrelated lock was refused")
	}
	release()
	release() // idempotent
	if _, ok, _ := l.TryLock(ctx, "sweep"); !ok {
		t.Fatal("a released lock was refused")
	}
}

func TestLocalCount(t *testing.T) {
	var l Local
	ctx := context.Background()
	for i := int64(1); i <= 3; i++ {
		if n, _ := l.Count(ctx, "k", time.Hour, 1); n != i {
			t.Fatalf("count %d, want %d", n, i)
		}
	}
	if n, _ := l.Count(ctx, "other", time.Hour, 5); n != 5 {
		t.Fatalf("other key %d", n)
	}
	// A window that has passed starts again from zero.
	if n, _ := l.Count(ctx, "short", time.Nanosecond, 1); n != 1 {
		t.Fatalf("short window %d", n)
	}
	time.Sleep(time.Millisecond)
	if n, _ := l.Count(ctx, "short", time.Nanosecond, 1); n != 1 {
		t.Fatalf("new window kept the old count: %d", n)
	}
}
