package parse

import (
	"errors"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// NeedsExtractor reports whether err is the failure of a PDF without a
// text layer (a scan) or without any extractable text, which an external
// extractor with OCR may still read, or of an Excel 5.0/95 workbook, which
// Apache Tika reads (docs/memories-and-retrieval.md#external-extractor). The
// decision rests on the error's code, field and message alone, so it
// holds for an error that crossed from the parser child process.
func NeedsExtractor(err error) bool {
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != engine.CodeBadRequest || e.Field != "document" {
		return false
	}
	return strings.HasPrefix(e.Message, MsgPDFNoTextLayer) || strings.HasPrefix(e.Message, MsgPDFNoText) ||
		strings.HasPrefix(e.Message, MsgXLSOld)
}
