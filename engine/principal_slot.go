package engine

import "context"

// PrincipalSlot is a request's context with room for its principal, so a
// server can give the request its context once, before it knows who
// calls, and authenticate later without a second context and a second
// request copy (net/http's Request.WithContext copies the request).
//
// Until Publish, Value answers for the principal as the parent does
// (PrincipalOf(slot) is the parent's principal, nil for a request's own
// context); after it, Value answers with the slot's principal, as the
// context of AuthenticateContext would. Publish is called once, by the
// goroutine serving the request, before the context reaches any other
// goroutine that asks for the principal; the slot is never changed after
// it. Every other key, cancellation and deadline pass to the parent, as
// through context.WithValue. A slot lives for one request: nothing
// changes with several Hearth nodes.
type PrincipalSlot struct {
	context.Context
	p         Principal
	published bool
}

// principalSlotKey finds the slot of a context (PrincipalSlotOf).
type principalSlotKey struct{}

// Value answers the principal key (once published) and the slot key, and
// passes every other key to the parent.
func (c *PrincipalSlot) Value(key any) any {
	switch key.(type) {
	case principalKey:
		if c.published {
			return &c.p
		}
	case principalSlotKey:
		if !c.published {
			return c
		}
		return nil
	}
	return c.Context.Value(key)
}

// PrincipalSlotOf returns the unpublished slot of ctx, or nil when ctx
// has none (or its slot already holds a principal: a request
// authenticates once).
func PrincipalSlotOf(ctx context.Context) *PrincipalSlot {
	s, _ := ctx.Value(principalSlotKey{}).(*PrincipalSlot)
	return s
}

// AuthenticateSlot is Authenticate with the principal written into slot:
// it is not visible through the slot until slot.Publish, so a caller that
// refuses the principal (wrong key kind, scope) leaves the context as it
// was. ctx is the request's current context (slot or a context over it).
func (a *Accounts) AuthenticateSlot(ctx context.Context, slot *PrincipalSlot, secret string) (*Principal, error) {
	return a.authenticate(ctx, secret, &slot.p)
}

// Publish makes the slot's principal the context's (see PrincipalSlot for
// when it may be called).
func (c *PrincipalSlot) Publish() { c.published = true }
