package server

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/hearth-dev/hearth/engine"
)

// pipeVersionRoutes serve a pipe's version history
// (docs/pipes-and-threads.md#pipe-versions): list, show, diff and restore.
func (s *Server) pipeVersionRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Path: "/v1/pipes/:name/versions", Auth: AuthOwner, Handler: s.handlePipeVersions,
			Doc: RouteDoc{Summary: "A pipe's versions, oldest first", Response: []pipeVersionView{}}},
		{Method: http.MethodGet, Path: "/v1/pipes/:name/versions/diff", Auth: AuthOwner, Handler: s.handlePipeVersionDiff,
			Doc: RouteDoc{Summary: "The configuration fields that differ between two versions of a pipe", Response: pipeDiffView{}, Query: []string{"from", "to"}}},
		{Method: http.MethodGet, Path: "/v1/pipes/:name/versions/:version", Auth: AuthOwner, Handler: s.handlePipeVersion,
			Doc: RouteDoc{Summary: "One version of a pipe", Response: pipeVersionView{}}},
		{Method: http.MethodPost, Path: "/v1/pipes/:name/versions/:version/restore", Auth: AuthOwner, Handler: s.handlePipeRestore,
			Doc: RouteDoc{Summary: "Make a version the pipe's configuration again (as a new version)", Response: pipeVersionView{}}},
	}
}

// pipeVersionView is one version as the API shows it: config has the
// shape of GET /v1/pipes/{name}.
type pipeVersionView struct {
	Version     int       `json:"version"`
	CreatedAt   time.Time `json:"created_at"`
	AuthorKeyID string    `json:"author_key_id"`
	Config      pipeView  `json:"config"`
}

// pipeDiffView lists the changed fields from one version to another.
type pipeDiffView struct {
	From    int                  `json:"from"`
	To      int                  `json:"to"`
	Changes []engine.FieldChange `json:"changes"`
}

func (s *Server) viewVersion(v *engine.PipeVersion) pipeVersionView {
	return pipeVersionView{Version: v.Number, CreatedAt: v.CreatedAt, AuthorKeyID: v.Author, Config: s.viewPipe(&v.Config)}
}

func (s *Server) handlePipeVersions(c echo.Context) error {
	name, err := pathParam(c, "name")
	if err != nil {
		return err
	}
	list, err := s.deps.Pipes.Versions(c.Request().Context(), principal(c).Owner, name)
	if err != nil {
		return err
	}
	out := make([]pipeVersionView, 0, len(list))
	for _, v := range list {
		out = append(out, s.viewVersion(v))
	}
	return c.JSON(http.StatusOK, out)
}

// pipeVersionParams reads the pipe name and version number of a route
// under /v1/pipes/:name/versions/:version.
func pipeVersionParams(c echo.Context) (string, int, error) {
	name, err := pathParam(c, "name")
	if err != nil {
		return "", 0, err
	}
	n, err := engine.ParseVersion("version", c.Param("version"))
	if err != nil {
		return "", 0, err
	}
	return name, n, nil
}

// showVersion answers with version n of the caller's pipe name.
func (s *Server) showVersion(c echo.Context, name string, n int) error {
	v, err := s.deps.Pipes.Version(c.Request().Context(), principal(c).Owner, name, n, "version")
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, s.viewVersion(v))
}

func (s *Server) handlePipeVersion(c echo.Context) error {
	name, n, err := pipeVersionParams(c)
	if err != nil {
		return err
	}
	return s.showVersion(c, name, n)
}

func (s *Server) handlePipeVersionDiff(c echo.Context) error {
	name, err := pathParam(c, "name")
	if err != nil {
		return err
	}
	from, err := engine.ParseVersion("from", c.QueryParam("from"))
	if err != nil {
		return err
	}
	to, err := engine.ParseVersion("to", c.QueryParam("to"))
	if err != nil {
		return err
	}
	ctx, owner := c.Request().Context(), principal(c).Owner
	a, err := s.deps.Pipes.Version(ctx, owner, name, from, "from")
	if err != nil {
		return err
	}
	b, err := s.deps.Pipes.Version(ctx, owner, name, to, "to")
	if err != nil {
		return err
	}
	changes, err := engine.DiffVersions(a, b)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, pipeDiffView{From: from, To: to, Changes: changes})
}

func (s *Server) handlePipeRestore(c echo.Context) error {
	name, n, err := pipeVersionParams(c)
	if err != nil {
		return err
	}
	p, err := s.deps.Pipes.Restore(c.Request().Context(), principal(c).Owner, name, n)
	if err != nil {
		return err
	}
	return s.showVersion(c, name, p.Version)
}
