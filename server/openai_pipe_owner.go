package server

import (
	"context"
	"slices"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// pipeRunner returns the principal a pipe:<owner>/<name> model runs as.
// A key runs its own owner's pipes (no owner, or its own); a user key also
// runs the pipes of every organization the user is a member of, acting
// for that organization (its keysets, threads, memories and run log), as
// the org's own key would. A pipe key and an org key reach no other
// owner. Membership is read from the store on each request, so every
// node of a cluster sees a member added or removed at once.
func (s *Server) pipeRunner(ctx context.Context, who *engine.Principal, t engine.ModelTarget) (*engine.Principal, error) {
	if t.Owner == "" || strings.EqualFold(t.Owner, who.Owner) {
		return who, nil
	}
	id := "pipe:" + t.Owner + "/" + t.Pipe
	if who.Kind != engine.KeyUser {
		return nil, &engine.Error{Code: engine.CodeForbidden, Field: "model",
			Message: "model: " + id + " belongs to " + t.Owner + "; a " + who.Kind + " key runs its own owner's pipes only (a member's user key runs an org's pipes)"}
	}
	acct, err := s.deps.Accounts.Get(ctx, t.Owner)
	if err != nil {
		if engine.IsNotFound(err) {
			return nil, &engine.Error{Code: engine.CodeNotFound, Field: "model", Message: "model: " + id + " not found: there is no owner " + t.Owner, Err: err}
		}
		return nil, err
	}
	if acct.Kind != engine.AccountOrg || !slices.Contains(acct.Members, who.Owner) {
		return nil, &engine.Error{Code: engine.CodeForbidden, Field: "model",
			Message: "model: " + id + " belongs to " + acct.Login + ", and this key's user is not a member of an organization of that name"}
	}
	as := *who
	as.Owner = acct.Login
	return &as, nil
}

// memberOrgs lists the organizations a user key's user is a member of
// (none for other keys), for the pipe: entries of GET /openai/v1/models.
func (s *Server) memberOrgs(ctx context.Context, who *engine.Principal) ([]string, error) {
	if who.Kind != engine.KeyUser {
		return nil, nil
	}
	accts, err := s.deps.Accounts.List(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, a := range accts {
		if a.Kind == engine.AccountOrg && slices.Contains(a.Members, who.Owner) {
			out = append(out, a.Login)
		}
	}
	return out, nil
}
