package server

import (
	"net/http"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

func (s *Server) adminRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Path: "/v1/admin/backup", Auth: AuthUser, Handler: s.handleBackup,
			Doc: RouteDoc{Summary: "Stream a consistent zstd backup of the data dir (admin user)", RawType: "application/zstd"}},
	}
}

// handleBackup streams a consistent, zstd-compressed backup of the whole
// data dir to the operator (the admin user created on first start).
// `hearth backup` uses it while a server holds the data dir.
func (s *Server) handleBackup(c echo.Context) error {
	acct, err := s.deps.Accounts.Get(c.Request().Context(), principal(c).Owner)
	if err != nil {
		return err
	}
	if !acct.Admin {
		return engine.Errorf(engine.CodeForbidden, "only the operator (admin) user may take backups")
	}
	if s.deps.Backup == nil {
		return engine.Errorf(engine.CodeUnavailable, "backups are not available on this server")
	}
	h := c.Response().Header()
	h.Set("Content-Type", "application/zstd")
	h.Set("Content-Disposition", `attachment; filename="hearth-`+time.Now().UTC().Format("20060102-150405")+`.backup.zst"`)
	h.Set("X-Content-Type-Options", "nosniff")
	c.Response().WriteHeader(http.StatusOK)
	if err := s.deps.Backup(c.Request().Context(), c.Response()); err != nil {
		// Headers are gone: the client sees a truncated stream, which
		// restore refuses (the zstd frame does not end).
		s.log.Error("backup failed mid-stream", "err", err)
	}
	return nil
}
