package server

import (
	"net/http"
	"slices"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

func (s *Server) runDetailRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Path: "/v1/runs/settings", Auth: AuthOwner, Handler: s.handleRunSettingsGet,
			Doc: RouteDoc{Summary: "Show the owner's run content setting (prompt and completion storage, retention)", Response: runSettingsView{}}},
		{Method: http.MethodPut, Path: "/v1/runs/settings", Auth: AuthOwner, Handler: s.handleRunSettingsPut,
			Doc: RouteDoc{Summary: "Turn prompt and completion storage on or off for every run of the owner, with its retention", Request: engine.RunContentSettings{}, Response: runSettingsView{}}},
		{Method: http.MethodGet, Path: "/v1/runs/:id", Auth: AuthOwner, Handler: s.handleRunGet,
			Doc: RouteDoc{Summary: "Show one run record and, when stored, its messages, completion and tool calls", Response: runDetail{}}},
	}
}

// runDetail is a run record with its stored content (null when none is
// kept: the option was off, or the retention period ended).
type runDetail struct {
	*engine.RunRecord
	Content *engine.RunContent `json:"content"`
}

// runSettingsView is the owner's setting and the server's default retention.
type runSettingsView struct {
	engine.RunContentSettings
	DefaultRetention string `json:"default_retention"`
}

func (s *Server) runLog() (*engine.RunLog, error) {
	if s.deps.Runner == nil || s.deps.Runner.RunLog() == nil {
		return nil, engine.Errorf(engine.CodeUnavailable, "the run log is not enabled on this server")
	}
	return s.deps.Runner.RunLog(), nil
}

// handleRunGet answers a run record with its content. A key scoped to
// pipes sees only the runs of its pipes (docs/accounts-and-keys.md#scoped-keys).
func (s *Server) handleRunGet(c echo.Context) error {
	rl, err := s.runLog()
	if err != nil {
		return err
	}
	id, err := pathParam(c, "id")
	if err != nil {
		return err
	}
	p := principal(c)
	ctx := c.Request().Context()
	rec, err := rl.Get(ctx, p.Owner, id)
	if err != nil {
		return err
	}
	if sc := p.Scope; sc != nil && len(sc.Pipes) > 0 && !slices.Contains(sc.Pipes, rec.Pipe) {
		return &engine.Error{Code: engine.CodeForbidden, Field: "pipes",
			Message: "this API key's pipes scope does not include the run " + id + " (pipe \"" + rec.Pipe + "\")"}
	}
	out := runDetail{RunRecord: rec}
	if rec.ContentStored {
		c, err := rl.RunContent(ctx, p.Owner, id)
		if err != nil && !engine.IsNotFound(err) {
			return err
		}
		out.Content = c
	}
	return c.JSON(http.StatusOK, out)
}

func (s *Server) runSettings(c echo.Context, rl *engine.RunLog) error {
	set, err := rl.ContentSettings(c.Request().Context(), principal(c).Owner)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, runSettingsView{RunContentSettings: *set, DefaultRetention: engine.FormatRetention(rl.ContentRetention())})
}

func (s *Server) handleRunSettingsGet(c echo.Context) error {
	rl, err := s.runLog()
	if err != nil {
		return err
	}
	return s.runSettings(c, rl)
}

// handleRunSettingsPut stores the owner's setting. Only an unscoped key
// changes it: turning storage on reaches every pipe of the owner.
func (s *Server) handleRunSettingsPut(c echo.Context) error {
	rl, err := s.runLog()
	if err != nil {
		return err
	}
	if !principal(c).Scope.Empty() {
		return &engine.Error{Code: engine.CodeForbidden, Field: "scope",
			Message: "a scoped API key cannot change the owner's run log settings: use an unscoped key of the owner"}
	}
	var b engine.RunContentSettings
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	if err := rl.SetContentSettings(c.Request().Context(), principal(c).Owner, &b); err != nil {
		return err
	}
	return s.runSettings(c, rl)
}
