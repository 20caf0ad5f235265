package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

type otherKey struct{}

// TestAuthenticateContext: the context AuthenticateContext returns
// carries the key's principal as WithPrincipal does, and passes every
// other value, cancellation and its cause through from its parent. A
// refused key returns the context unchanged.
func TestAuthenticateContext(t *testing.T) {
	acc, keyID, key := newAliceKey(t)
	bg := context.Background()
	parent, cancel := context.WithCancelCause(context.WithValue(bg, otherKey{}, "v"))
	for i := range 2 { // from the store, then from the cache
		ctx, p, err := acc.AuthenticateContext(parent, key)
		if err != nil || p == nil || p.Owner != "alice" || p.KeyID != keyID || p.Kind != engine.KeyUser {
			t.Fatalf("attempt %d: %+v %v", i, p, err)
		}
		if engine.PrincipalOf(ctx) != p || engine.ScopeOf(ctx) != p.Scope || ctx.Value(otherKey{}) != "v" {
			t.Fatalf("attempt %d: context carries %+v, other value %v", i, engine.PrincipalOf(ctx), ctx.Value(otherKey{}))
		}
	}
	ctx, _, _ := acc.AuthenticateContext(parent, key)
	child, stop := context.WithCancel(ctx)
	defer stop()
	why := errors.New("client went away")
	cancel(why)
	<-child.Done()
	if context.Cause(child) != why || ctx.Err() != context.Canceled {
		t.Fatalf("cancellation: cause %v, err %v", context.Cause(child), ctx.Err())
	}
	if ctx, p, err := acc.AuthenticateContext(bg, key+"x"); engine.ErrorCode(err) != engine.CodeUnauthorized || p != nil || ctx != bg {
		t.Fatalf("wrong key: %v %v", p, err)
	}
}

// BenchmarkAuthenticateContextAllocs: with the key cached, authenticating
// costs one allocation on Go 1.26, the context and the principal together
// (the key's hash is looked up from the stack).
func BenchmarkAuthenticateContextAllocs(b *testing.B) {
	acc, _, key := newAliceKey(b)
	bg := context.Background()
	if _, _, err := acc.AuthenticateContext(bg, key); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := acc.AuthenticateContext(bg, key); err != nil {
			b.Fatal(err)
		}
	}
}
