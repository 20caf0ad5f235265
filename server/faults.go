package server

import (
	"context"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// HeaderFault asks for faults in the upstream calls of one request
// (docs/hearth-in-your-tests.md); it is refused unless the server
// runs with HEARTH_FAULTS set.
const HeaderFault = "LB-Fault"

// headerFault is HeaderFault canonicalised: Header.Get canonicalises (so
// allocates) the mixed-case name on every request.
const headerFault = "Lb-Fault"

// FaultFunc reads an LB-Fault header value and returns ctx carrying its
// rules, or the reason the value is not valid.
type FaultFunc func(ctx context.Context, value string) (context.Context, error)

// faults hands an LB-Fault header to Config.Faults. Without it (faults
// off) the header is a 400, so a test never believes it injected a fault
// that a production server silently ignored.
func (s *Server) faults(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		v := r.Header.Get(headerFault)
		if v == "" {
			return next(c)
		}
		if s.cfg.Faults == nil {
			return engine.FieldError(HeaderFault, "fault injection is off on this server; start it with HEARTH_FAULTS=on to use this header")
		}
		ctx, err := s.cfg.Faults(r.Context(), v)
		if err != nil {
			return engine.FieldError(HeaderFault, "%s", err.Error())
		}
		c.SetRequest(r.WithContext(ctx))
		return next(c)
	}
}
