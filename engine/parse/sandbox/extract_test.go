package sandbox

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// TestExtractorForScans: a PDF without a text layer, whose verdict comes
// from the child process, goes to Config.Extract, and the extractor's text
// or error is the answer; readable PDFs, other failures and other formats
// never reach it.
func TestExtractorForScans(t *testing.T) {
	var calls []string
	fail := false
	p := testParser(t, Config{Timeout: 30 * time.Second, Extract: func(ctx context.Context, ct, name string, data []byte) (string, error) {
		calls = append(calls, ct+" "+name)
		if fail {
			return "", &engine.Error{Code: engine.CodeBadRequest, Field: "document", Message: "external extractor (tika at http://tika:9998) failed: HTTP 422"}
		}
		return "OCR text of " + name, nil
	}})
	ctx := context.Background()
	text, err := p.Parse(ctx, "application/pdf", "scan.pdf", fixture(t, "scanned-image.pdf"))
	if err != nil || text != "OCR text of scan.pdf" || len(calls) != 1 || calls[0] != "application/pdf scan.pdf" {
		t.Fatalf("%q %v, calls %v", text, err, calls)
	}
	fail = true
	_, err = p.Parse(ctx, "", "scan.pdf", fixture(t, "scanned-image.pdf"))
	if err == nil || !strings.Contains(err.Error(), "external extractor (tika at http://tika:9998) failed: HTTP 422") {
		t.Fatalf("extractor failure: %v", err)
	}
	calls = nil
	for _, name := range []string{"simple.pdf", "encrypted.pdf", "corrupt.pdf"} {
		_, _ = p.Parse(ctx, "", name, fixture(t, name))
	}
	_, _ = p.Parse(ctx, "", "a.xls", fixture(t, "office/small.xls"))
	if len(calls) != 0 {
		t.Errorf("the extractor was called for %v", calls)
	}
}
