package parse

import (
	"errors"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// TestPDFNoTextLayer: PDFs Chromium printed from a page image
// (testdata/docs/scan/make.sh) fail as scans without a text layer, alone
// and with a page number; the same image beside a paragraph is read. A
// PDF that draws neither text nor images keeps its own reason. Both
// failures, and no other, are for the external extractor.
func TestPDFNoTextLayer(t *testing.T) {
	for _, name := range []string{"scanned-image.pdf", "scanned-pagenum.pdf"} {
		_, err := Parse("", name, fixture(t, name))
		var e *engine.Error
		if !errors.As(err, &e) || e.Code != engine.CodeBadRequest || e.Field != "document" ||
			!strings.HasPrefix(e.Message, "PDF has no text layer (scanned?); configure HEARTH_EXTRACTOR_URL") {
			t.Errorf("%s: %v", name, err)
		}
		if !NeedsExtractor(err) {
			t.Errorf("%s: not for the extractor: %v", name, err)
		}
	}
	text, err := Parse("", "photo-caption.pdf", fixture(t, "photo-caption.pdf"))
	if err != nil || text != "Bees collect nectar from flowers and turn it into honey inside the hive." {
		t.Errorf("photo-caption.pdf: %q %v", text, err)
	}
	_, err = Parse("", "scanned.pdf", fixture(t, "scanned.pdf"))
	if err == nil || !strings.HasPrefix(err.Error(), "BAD_REQUEST: PDF contains no extractable text") || !NeedsExtractor(err) {
		t.Errorf("scanned.pdf (shapes only): %v", err)
	}
	for _, name := range []string{"encrypted.pdf", "corrupt.pdf", "simple.pdf"} {
		if _, err := Parse("", name, fixture(t, name)); NeedsExtractor(err) {
			t.Errorf("%s is for the extractor: %v", name, err)
		}
	}
	if NeedsExtractor(&engine.Error{Code: engine.CodeBadRequest, Field: "document", Message: "could not read PDF: " + MsgPDFNoTextLayer}) {
		t.Error("a message that only contains the phrase is for the extractor")
	}
}
