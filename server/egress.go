package server

import (
	"net/http"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// EgressReport is the answer of GET /v1/admin/egress: the egress policy in
// force and every destination this node contacted or refused since it
// started (docs/air-gapped.md).
type EgressReport struct {
	Mode         string        `json:"mode"`
	Allow        []string      `json:"allow"`
	Destinations []EgressEntry `json:"destinations"`
}

// EgressEntry counts the connections to one destination for one feature
// with one outcome ("connected", "failed" or "refused").
type EgressEntry struct {
	Host    string    `json:"host"`
	Port    string    `json:"port"`
	Feature string    `json:"feature"`
	Outcome string    `json:"outcome"`
	Count   int64     `json:"count"`
	Last    time.Time `json:"last"`
}

func (s *Server) egressRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Path: "/v1/admin/egress", Auth: AuthUser, Handler: s.handleEgress,
			Doc: RouteDoc{Summary: "Egress policy and the destinations this node contacted or refused since start (admin user)", Response: EgressReport{}}},
	}
}

// handleEgress answers the egress record to the operator (admin user).
// The record is per node: with several nodes each answers for itself.
func (s *Server) handleEgress(c echo.Context) error {
	acct, err := s.deps.Accounts.Get(c.Request().Context(), principal(c).Owner)
	if err != nil {
		return err
	}
	if !acct.Admin {
		return engine.Errorf(engine.CodeForbidden, "only the operator (admin) user may read the egress record")
	}
	if s.deps.Egress == nil {
		return engine.Errorf(engine.CodeUnavailable, "the egress record is not available on this server")
	}
	return c.JSON(http.StatusOK, s.deps.Egress())
}
