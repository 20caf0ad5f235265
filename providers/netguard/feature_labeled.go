package netguard

import "context"

// Labeled is a context labelled with a feature as Label.Context labels it,
// kept in memory the caller already has (an upstream call's own state)
// instead of an allocation of its own: Label.In fills it. It lives for one
// call only: nothing changes with several Hearth nodes.
type Labeled struct {
	context.Context
	v any
}

// In labels ctx as l.Context(ctx) does, in dst, and returns it. dst must
// not be reused while the returned context is in use.
func (l Label) In(dst *Labeled, ctx context.Context) context.Context {
	if l.v == nil {
		return l.Context(ctx)
	}
	*dst = Labeled{Context: ctx, v: l.v}
	return dst
}

// Value returns the label for the feature key and the parent's value for
// any other key.
func (c *Labeled) Value(key any) any {
	if _, ok := key.(featureKey); ok {
		return c.v
	}
	return c.Context.Value(key)
}
