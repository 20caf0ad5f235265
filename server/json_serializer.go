package server

import (
	"encoding/json"

	"github.com/labstack/echo/v4"
)

// plainJSON is echo's JSON serializer without HTML escaping: "<", ">" and
// "&" stay as they are in answers and error messages ("<owner>", not
// "\u003cowner\u003e"). API answers are application/json with nosniff and
// a default-src 'none' policy, so nothing renders them as HTML.
type plainJSON struct{ echo.DefaultJSONSerializer }

// Serialize writes i as JSON, indented when indent is set.
func (plainJSON) Serialize(c echo.Context, i any, indent string) error {
	enc := json.NewEncoder(c.Response())
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	return enc.Encode(i)
}
