package server

import (
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// bearer returns the key of an "Authorization: Bearer <key>" header, or
// on the Anthropic surface of an x-api-key header.
func bearer(c echo.Context) string {
	h := c.Request().Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return anthropicKey(c)
}

// authenticate resolves the bearer key and enforces the route's key kind.
// Org routes need an org key of the org in the path; a user or org key
// never reaches another owner's resources (handlers scope every lookup by
// the principal's owner, and answer 404 for what it cannot see).
func (s *Server) authenticate(kind Auth) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		if kind == AuthNone {
			return next
		}
		return func(c echo.Context) error {
			key := bearer(c)
			if key == "" && kind == AuthOptional {
				return next(c)
			}
			// The principal goes into the room the request's context has
			// for it (request_state.go), or into a context of its own
			// and a copy of the request when it has none.
			ctx := c.Request().Context()
			slot := engine.PrincipalSlotOf(ctx)
			var p *engine.Principal
			var err error
			if slot != nil {
				p, err = s.deps.Accounts.AuthenticateSlot(ctx, slot, key)
			} else {
				ctx, p, err = s.deps.Accounts.AuthenticateContext(ctx, key)
			}
			if err != nil {
				if kind == AuthOptional && engine.ErrorCode(err) == engine.CodeUnauthorized {
					return next(c)
				}
				return err
			}
			if err := checkKind(kind, p, c); err != nil {
				return err
			}
			if err := checkScope(p, c); err != nil {
				return err
			}
			if slot != nil {
				slot.Publish()
			} else {
				c.SetRequest(c.Request().WithContext(ctx))
			}
			return next(c)
		}
	}
}

func checkKind(kind Auth, p *engine.Principal, c echo.Context) error {
	switch kind {
	case AuthOwner:
		if !p.IsOwnerKey() {
			// Field "scope", as every scoped-key refusal: a pipe key is a
			// key scoped to its pipe (docs/accounts-and-keys.md#scoped-keys).
			return &engine.Error{Code: engine.CodeForbidden, Field: "scope", Message: "a pipe key can only run its pipe, so it cannot use " +
				c.Request().Method + " " + c.Path() + "; use a user or org key of the owner"}
		}
	case AuthUser:
		if p.Kind != engine.KeyUser {
			return engine.Errorf(engine.CodeForbidden, "this endpoint needs a user key, got a %s key", p.Kind)
		}
	case AuthOrg:
		if p.Kind != engine.KeyOrg {
			return engine.Errorf(engine.CodeForbidden, "this endpoint needs an org key, got a %s key", p.Kind)
		}
		if org := strings.ToLower(c.Param("org")); org != p.Owner {
			return engine.Errorf(engine.CodeForbidden, "this org key belongs to %q, not %q", p.Owner, org)
		}
	case AuthPipe:
		if p.Kind != engine.KeyPipe {
			return engine.Errorf(engine.CodeForbidden, "this endpoint needs a pipe key (the api_key returned when the pipe was created)")
		}
	}
	return nil
}

// principal returns the authenticated principal of the request (nil on
// public routes and optional-auth routes without a key). authenticate
// puts it in the request's context only: echo's Context.Set would
// allocate its value map on every request.
func principal(c echo.Context) *engine.Principal {
	return engine.PrincipalOf(c.Request().Context())
}
