package parse

import (
	"errors"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

func TestCheckContentType(t *testing.T) {
	for _, tc := range []struct {
		ct, name string
		want     string // media type, or "" when an error is expected
		errHas   string
	}{
		{"application/pdf", "report.pdf", TypePDF, ""},
		{"Application/PDF", "REPORT.PDF", TypePDF, ""},
		{"text/plain; charset=utf-8", "notes.txt", TypeText, ""},
		{"text/markdown", "README.md", TypeMarkdown, ""},
		{"text/markdown", "post.markdown", TypeMarkdown, ""},
		{"text/markdown", "page.mdx", TypeMarkdown, ""},
		{"text/csv;charset=UTF-8", "data.csv", TypeCSV, ""},
		{TypeXLSX, "book.xlsx", TypeXLSX, ""},
		{TypeXLS, "old.xls", TypeXLS, ""},
		{"text/plain", "main.go", TypeText, ""},
		{"text/plain", "app.py", TypeText, ""},
		{"text/plain", "index.ts", TypeText, ""},
		{"text/plain", "config.yaml", TypeText, ""},
		{"text/plain", "Makefile", TypeText, ""},
		{"text/plain", "archive.tar", TypeText, ""},
		{"", "a.pdf", "", "is missing"},
		{"image/png", "a.png", "", `"image/png" is not supported`},
		{"application/json", "a.json", "", "not supported"},
		{"text/plain", "a.pdf", "", ".pdf files must be sent as application/pdf"},
		{"application/pdf", "a.txt", "", ".txt files must be sent as text/plain"},
		{"text/markdown", "main.go", "", ".go files must be sent as text/plain"},
		{"text/plain", "a.md", "", ".md files must be sent as text/markdown"},
		{"text/csv", "a.xlsx", "", "must be sent as " + TypeXLSX},
		{"application/pdf", "Makefile", "", "without a known extension must be sent as text/plain"},
	} {
		got, err := CheckContentType(tc.ct, tc.name)
		if tc.want != "" {
			if err != nil || got != tc.want {
				t.Errorf("CheckContentType(%q, %q) = %q, %v; want %q", tc.ct, tc.name, got, err, tc.want)
			}
			continue
		}
		var e *engine.Error
		if !errors.As(err, &e) || e.Code != engine.CodeUnsupportedMedia || e.Field != "Content-Type" || !strings.Contains(e.Message, tc.errHas) {
			t.Errorf("CheckContentType(%q, %q) = %v; want UNSUPPORTED_MEDIA_TYPE containing %q", tc.ct, tc.name, err, tc.errHas)
		}
	}
}

func TestParseInfersTypeFromName(t *testing.T) {
	for _, ct := range []string{"", "application/octet-stream"} {
		got, err := Parse(ct, "data.csv", []byte("a,b\n1,2\n"))
		if err != nil || got != "a: 1, b: 2" {
			t.Errorf("content type %q: got %q, %v", ct, got, err)
		}
	}
}

// TestParseXLSTruncatedHeader: a file cut inside the compound file header
// is a document error, no longer a refusal of the format.
func TestParseXLSTruncatedHeader(t *testing.T) {
	_, err := Parse(TypeXLS, "old.xls", []byte{0xD0, 0xCF, 0x11, 0xE0})
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != engine.CodeBadRequest || !strings.Contains(e.Message, "not an Excel 97-2003 workbook") {
		t.Fatalf("got %v", err)
	}
}

func TestContentTypes(t *testing.T) {
	if len(ContentTypes()) != 12 {
		t.Fatalf("got %v", ContentTypes())
	}
	for _, ct := range ContentTypes() {
		if MediaType(ct+"; charset=utf-8") != ct {
			t.Errorf("MediaType(%q) lost the type", ct)
		}
	}
}
