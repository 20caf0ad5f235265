package parse

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestParseFixtures runs every parser on the committed fixtures (see
// testdata/docs/gen) and checks the exact text or the error message.
func TestParseFixtures(t *testing.T) {
	for _, tc := range []struct {
		file, contentType string
		want              string // exact text, when wantErr is ""
		wantErr           string // substring of the error message
		wantCode          string
	}{
		{file: "simple.pdf", want: "Hearth PDF fixture\nThe quick brown fox jumps over the lazy dog.\n\nSecond paragraph: memories, chunks and embeddings."},
		{file: "multipage.pdf", want: "Page one title\nAlpha beta gamma.\n\nPage two: kerned words\n\nPage three ends here."},
		{file: "nowidths.pdf", want: "Fonts without widths\nstill give words"},
		{file: "badpage.pdf", want: "The second page survives."},
		{file: "badfilter.pdf", wantErr: "could not read PDF: file is corrupt or unsupported"},
		{file: "truncated.pdf", wantErr: "could not read PDF: file is corrupt or unsupported"},
		{file: "corrupt.pdf", wantErr: "could not read PDF: file is corrupt or unsupported"},
		{file: "encrypted.pdf", wantErr: "PDF is encrypted"},
		{file: "scanned.pdf", wantErr: "PDF contains no extractable text"},
		{file: "notes.md", want: "title: Hearth notes\ntags: [memory, rag]\n\n# Getting started\n\nHearth serves the Langbase API from one binary.\nArchitecture diagram\n\n## Install\n\n```sh\ngo install github.com/hearth-dev/hearth@latest # [not a link](x)\n```\n\n- one\n- two"},
		{file: "people.csv", want: "name: Ada Lovelace, role: engineer, notes, free text: wrote the first program, 1843\n" +
			"name: Grace \"Amazing\" Hopper, role: admiral, notes, free text: line one line two\n" +
			"name: Linus, notes, free text: kernel, column 4: extra cell\n" +
			"name: Ken"},
		{file: "semicolon.csv", want: "name: Ada, city: London\nname: Linus, city: Helsinki"},
		{file: "header-only.csv", wantErr: "CSV file has a header row but no data rows"},
		{file: "main.go", want: string(fixture(t, "main.go"))},
		{file: "crlf-bom.txt", want: "first line\nsecond line\n\nthird paragraph\n"},
		{file: "utf16.txt", want: "Grüße aus Köln\nzweite Zeile"},
		{file: "empty.txt", wantErr: "document is empty"},
		{file: "empty.txt", contentType: TypeMarkdown + "", wantErr: "does not match", wantCode: engine.CodeUnsupportedMedia},
		{file: "binary.txt", wantErr: "document looks binary"},
		{file: "sheet.xlsx", want: "Sheet: Staff\nname: Ada Lovelace, age: 36, active: TRUE\nname: Grace, active: FALSE"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			ct := tc.contentType
			if ct == "" {
				ct, _ = TypeForName(tc.file)
			}
			got, err := Parse(ct, tc.file, fixture(t, tc.file))
			if tc.wantErr != "" {
				var e *engine.Error
				if !errors.As(err, &e) || !strings.Contains(e.Message, tc.wantErr) {
					t.Fatalf("got (%q, %v), want error containing %q", got, err, tc.wantErr)
				}
				if code := tc.wantCode; code != "" && e.Code != code {
					t.Errorf("code %s, want %s", e.Code, code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}
