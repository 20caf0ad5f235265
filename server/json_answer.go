package server

import "github.com/labstack/echo/v4"

// jsonContentType is the shared read-only Content-Type value of JSON
// answers (len == cap, so an Add copies instead of writing into it).
var jsonContentType = []string{echo.MIMEApplicationJSON}

// answerJSON is c.JSON for the hot run routes without two allocations
// echo spends on every answer: the Content-Type header is the shared
// value instead of a new one, and the query is parsed (to look for
// ?pretty) only when the request has one. Its output is c.JSON's.
func answerJSON(c echo.Context, code int, v any) error {
	if c.Request().URL.RawQuery != "" || c.Echo().Debug {
		return c.JSON(code, v)
	}
	h := c.Response().Header()
	if h.Get(echo.HeaderContentType) == "" {
		h[echo.HeaderContentType] = jsonContentType
	}
	c.Response().Status = code
	return c.Echo().JSONSerializer.Serialize(c, v, "")
}
