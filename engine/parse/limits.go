package parse

import (
	"fmt"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// DefaultMaxOutput is the default bound on the text one document may
// produce, in bytes (HEARTH_PARSE_MAX_OUTPUT, docs/security.md#parser-and-chunker-limits).
const DefaultMaxOutput = 32 << 20

// Options bound the work of one parse. The zero value takes the defaults.
type Options struct {
	// MaxOutput is the most text, in bytes, a document may produce
	// (default DefaultMaxOutput). Past it the parse stops early and fails
	// with a PAYLOAD_TOO_LARGE error that names the limit.
	MaxOutput int
}

func (o Options) maxOutput() int {
	if o.MaxOutput <= 0 {
		return DefaultMaxOutput
	}
	return o.MaxOutput
}

// ErrOutputTooLarge returns the error of a document whose text passes the
// limit of max bytes.
func ErrOutputTooLarge(max int) *engine.Error {
	return &engine.Error{Code: engine.CodePayloadTooLarge, Field: "document",
		Message: fmt.Sprintf("document text is larger than the parser output limit of %d bytes (HEARTH_PARSE_MAX_OUTPUT); split the document or ask the operator to raise the limit", max)}
}

// capped is a text builder that stops growing usefully past max bytes: a
// writer checks over() after each bounded write and gives up, so memory
// stays within max plus one write.
type capped struct {
	strings.Builder
	max int
}

func (c *capped) over() bool { return c.Len() > c.max }

// checkOutput fails text past the limit; parsers whose output cannot
// exceed a small multiple of their input check only at the end.
func checkOutput(text string, max int) (string, error) {
	if len(text) > max {
		return "", ErrOutputTooLarge(max)
	}
	return text, nil
}
