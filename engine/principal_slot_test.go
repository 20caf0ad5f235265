package engine_test

import (
	"context"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// TestPrincipalSlot: a slot answers for the principal as its parent does
// until Publish and with its own principal after, passes other values and
// cancellation through, is found by PrincipalSlotOf only while
// unpublished, and a refused key leaves it unpublished.
func TestPrincipalSlot(t *testing.T) {
	acc, keyID, key := newAliceKey(t)
	bg := context.Background()
	outer := &engine.Principal{Owner: "outer"}
	parent, cancel := context.WithCancel(context.WithValue(engine.WithPrincipal(bg, outer), otherKey{}, "v"))
	slot := &engine.PrincipalSlot{Context: parent}
	if engine.PrincipalOf(slot) != outer || engine.PrincipalSlotOf(slot) != slot || slot.Value(otherKey{}) != "v" {
		t.Fatalf("before publish: principal %+v, slot %p, other %v", engine.PrincipalOf(slot), engine.PrincipalSlotOf(slot), slot.Value(otherKey{}))
	}
	if p, err := acc.AuthenticateSlot(slot, slot, key+"x"); engine.ErrorCode(err) != engine.CodeUnauthorized || p != nil || engine.PrincipalOf(slot) != outer {
		t.Fatalf("wrong key: %+v %v, context principal %+v", p, err, engine.PrincipalOf(slot))
	}
	p, err := acc.AuthenticateSlot(slot, slot, key)
	if err != nil || p.Owner != "alice" || p.KeyID != keyID || engine.PrincipalOf(slot) != outer {
		t.Fatalf("authenticated, unpublished: %+v %v, context principal %+v", p, err, engine.PrincipalOf(slot))
	}
	slot.Publish()
	if engine.PrincipalOf(slot) != p || engine.ScopeOf(slot) != p.Scope || engine.KeyIDOf(slot) != keyID || engine.PrincipalSlotOf(slot) != nil {
		t.Fatalf("published: principal %+v, slot %p", engine.PrincipalOf(slot), engine.PrincipalSlotOf(slot))
	}
	cancel()
	if slot.Err() != context.Canceled {
		t.Fatalf("cancellation: %v", slot.Err())
	}
	if engine.PrincipalSlotOf(bg) != nil {
		t.Fatal("a context without a slot has one")
	}
}
