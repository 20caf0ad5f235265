package parse

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hearth-dev/hearth/engine"
)

// checkResult holds for every parser: either an *engine.Error, or valid
// UTF-8 text without "\r" that is not blank.
func checkResult(t *testing.T, text string, err error) {
	t.Helper()
	if err != nil {
		var e *engine.Error
		if !errors.As(err, &e) || e.Message == "" {
			t.Fatalf("error is not an engine.Error with a message: %#v", err)
		}
		if text != "" {
			t.Fatalf("text %q returned with error %v", text, err)
		}
		return
	}
	if !utf8.ValidString(text) {
		t.Fatalf("invalid UTF-8 in %q", text)
	}
	if strings.TrimSpace(text) == "" {
		t.Fatalf("blank text %q without error", text)
	}
	if i := strings.IndexByte(text, '\r'); i >= 0 {
		t.Fatalf("carriage return at byte %d of %q", i, text)
	}
}

// fuzzMaxOutput is the output limit of the fuzz targets: small, so that a
// parser that does not stop at its limit is caught at once.
const fuzzMaxOutput = 1 << 20

// checkSize fails text past the output limit, or, for the formats whose
// text must be linear in their input (text, markdown, CSV), past that
// bound: a new amplification is a fuzz failure.
func checkSize(t *testing.T, ct string, data []byte, text string) {
	t.Helper()
	if len(text) > fuzzMaxOutput {
		t.Fatalf("%s: %d bytes of text, past the limit of %d", ct, len(text), fuzzMaxOutput)
	}
	if ct != TypePDF && ct != TypeXLSX && len(text) > linearBound(len(data)) {
		t.Fatalf("%s: %d bytes rendered %d bytes of text, past the linear bound %d", ct, len(data), len(text), linearBound(len(data)))
	}
}

// FuzzParseText runs the text, markdown and CSV parsers on arbitrary bytes
// and checks the size of their text (checkSize). The seed corpus in
// testdata/fuzz/FuzzParseText, which holds the CSV header bomb, runs under
// plain go test.
func FuzzParseText(f *testing.F) {
	for _, name := range []string{"notes.md", "people.csv", "semicolon.csv", "crlf-bom.txt", "utf16.txt", "main.go"} {
		f.Add(fixture(f, name))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, c := range []struct{ ct, name string }{{TypeText, "f.txt"}, {TypeMarkdown, "f.md"}, {TypeCSV, "f.csv"}} {
			text, err := ParseWith(c.ct, c.name, data, Options{MaxOutput: fuzzMaxOutput})
			checkResult(t, text, err)
			checkSize(t, c.ct, data, text)
			if err == nil && c.ct != TypeCSV {
				for i := 0; i < len(text); i++ {
					if text[i] == '\r' {
						t.Fatalf("%s: carriage return left in %q", c.ct, text)
					}
				}
			}
		}
	})
}

// FuzzParsePDF checks that no input makes the PDF parser panic out of
// Parse. The seed corpus in testdata/fuzz/FuzzParsePDF runs under plain
// go test.
func FuzzParsePDF(f *testing.F) {
	for _, name := range []string{"simple.pdf", "multipage.pdf", "encrypted.pdf", "badpage.pdf", "truncated.pdf", "scanned.pdf", "scanned-image.pdf"} {
		f.Add(fixture(f, name))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		text, err := ParseWith(TypePDF, "f.pdf", data, Options{MaxOutput: fuzzMaxOutput})
		checkResult(t, text, err)
		checkSize(t, TypePDF, data, text)
	})
}

// FuzzParseXLSX checks the xlsx reader on arbitrary bytes and the size of
// its text. The seed corpus in testdata/fuzz/FuzzParseXLSX holds the
// shared strings bomb.
func FuzzParseXLSX(f *testing.F) {
	f.Add(fixture(f, "sheet.xlsx"))
	f.Fuzz(func(t *testing.T, data []byte) {
		text, err := ParseWith(TypeXLSX, "f.xlsx", data, Options{MaxOutput: fuzzMaxOutput})
		checkResult(t, text, err)
		checkSize(t, TypeXLSX, data, text)
	})
}
