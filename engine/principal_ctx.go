package engine

import "context"

// principalCtx is a request's context carrying its principal, the two in
// one allocation: WithPrincipal over a principal of its own would take two
// (the principal and the context). It answers Value as WithPrincipal's
// context answers it and passes every other key to its parent, so
// cancellation, deadlines and values reach through it as through
// context.WithValue. It lives for one request: nothing changes with
// several Hearth nodes.
type principalCtx struct {
	context.Context
	p Principal
}

func (c *principalCtx) Value(key any) any {
	if _, ok := key.(principalKey); ok {
		return &c.p
	}
	return c.Context.Value(key)
}

// AuthenticateContext is Authenticate that also returns ctx carrying the
// principal, as WithPrincipal(ctx, p) carries it; p lives inside that
// context. On an error ctx is returned as it was.
func (a *Accounts) AuthenticateContext(ctx context.Context, secret string) (context.Context, *Principal, error) {
	pc := &principalCtx{Context: ctx}
	p, err := a.authenticate(ctx, secret, &pc.p)
	if err != nil {
		return ctx, nil, err
	}
	return pc, p, nil
}
