package server

import (
	"slices"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// setThreadHeader answers the run's thread id in lb-thread-id; a run of a
// read-only key has none (it stores no thread, docs/accounts-and-keys.md#scoped-keys), and
// the header is left out.
func setThreadHeader(c echo.Context, threadID string) {
	if threadID != "" {
		setHeader(c.Response().Header(), HeaderThreadID, threadID)
	}
}

// scopeRuns keeps the runs a key scoped to pipes may see: the runs of its
// pipes (docs/accounts-and-keys.md#scoped-keys). A page may come out shorter than asked;
// its cursor still continues after the last record read.
func scopeRuns(s *engine.Scope, runs []*engine.RunRecord) []*engine.RunRecord {
	if s == nil || len(s.Pipes) == 0 {
		return runs
	}
	out := runs[:0]
	for _, r := range runs {
		if slices.Contains(s.Pipes, r.Pipe) {
			out = append(out, r)
		}
	}
	return out
}
