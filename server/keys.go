package server

import (
	"net/http"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// Hearth's own account endpoints (not in the Langbase API): who a key is,
// and the caller's API keys. The studio uses them.
func (s *Server) keyRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Path: "/v1/me", Auth: AuthRun, Handler: s.handleMe,
			Doc: RouteDoc{Summary: "Who the key belongs to", Response: meView{}}},
		{Method: http.MethodGet, Path: "/v1/keys", Auth: AuthOwner, Handler: s.handleKeyList,
			Doc: RouteDoc{Summary: "List the caller's API keys", Response: []keyView{}}},
		{Method: http.MethodPost, Path: "/v1/keys", Auth: AuthOwner, Handler: s.handleKeyCreate,
			Doc: RouteDoc{Summary: "Create an API key (shown once)", Request: keyCreateBody{}, Response: keyCreateView{}}},
		{Method: http.MethodDelete, Path: "/v1/keys/:id", Auth: AuthOwner, Handler: s.handleKeyRevoke,
			Doc: RouteDoc{Summary: "Revoke an API key", Response: successView{}}},
	}
}

type keyView struct {
	ID        string     `json:"id"`
	Kind      string     `json:"kind"`
	Owner     string     `json:"owner_login"`
	Name      string     `json:"name"`
	Prefix    string     `json:"prefix"`
	PipeID    string     `json:"pipe_id,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
	// Scope is what limits the key (docs/accounts-and-keys.md#scoped-keys); absent: none.
	Scope *engine.Scope `json:"scope,omitempty"`
}

// keyCreateBody is the body of POST /v1/keys: a name and, optionally,
// the fields of a scope (docs/accounts-and-keys.md#scoped-keys).
type keyCreateBody struct {
	Name string `json:"name"`
	engine.Scope
}

func viewKey(k *engine.APIKey) keyView {
	return keyView{ID: k.ID, Kind: k.Kind, Owner: k.Owner, Name: k.Name, Prefix: k.Prefix + "…",
		PipeID: k.PipeID, CreatedAt: k.CreatedAt, RevokedAt: k.RevokedAt, Scope: k.Scope}
}

func (s *Server) handleMe(c echo.Context) error {
	p := principal(c)
	acct, err := s.deps.Accounts.Get(c.Request().Context(), p.Owner)
	if err != nil {
		return err
	}
	members := acct.Members
	if p.Kind == engine.KeyPipe || members == nil {
		// Pipe keys ship to browsers: they learn their owner, not its
		// members. A user has none: an empty list, never null.
		members = []string{}
	}
	return c.JSON(http.StatusOK, map[string]any{
		"login": acct.Login, "kind": acct.Kind, "members": members,
		"key": map[string]string{"id": p.KeyID, "kind": p.Kind},
	})
}

func (s *Server) handleKeyList(c echo.Context) error {
	keys, err := s.deps.Accounts.ListKeys(c.Request().Context(), principal(c).Owner)
	if err != nil {
		return err
	}
	out := make([]keyView, 0, len(keys))
	for _, k := range keys {
		if k.Kind != engine.KeyPipe {
			out = append(out, viewKey(k))
		}
	}
	return c.JSON(http.StatusOK, out)
}

func (s *Server) handleKeyCreate(c echo.Context) error {
	var body keyCreateBody
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	if len(body.Name) > 100 {
		return engine.FieldError("name", "must be at most 100 characters")
	}
	rec, secret, err := s.deps.Accounts.CreateScopedKey(c.Request().Context(), principal(c).Owner, body.Name, &body.Scope)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"key": secret, "info": viewKey(rec)})
}

func (s *Server) handleKeyRevoke(c echo.Context) error {
	id, err := pathParam(c, "id")
	if err != nil {
		return err
	}
	p := principal(c)
	if id == p.KeyID {
		return engine.Errorf(engine.CodeBadRequest, "a key cannot revoke itself; use another key of the same owner")
	}
	if err := s.deps.Accounts.RevokeKey(c.Request().Context(), p.Owner, id); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]bool{"success": true})
}
