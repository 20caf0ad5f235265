package server

import "github.com/labstack/echo/v4"

// setThreadHeader answers the run's thread id in lb-thread-id; a run of a
// read-only key has none (it stores no thread, README "Scoped keys"), and
// the header is left out.
func setThreadHeader(c echo.Context, threadID string) {
	if threadID != "" {
		setHeader(c.Response().Header(), HeaderThreadID, threadID)
	}
}
