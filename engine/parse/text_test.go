package parse

import (
	"errors"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

func TestParseText(t *testing.T) {
	for _, tc := range []struct {
		name, in, want, errHas string
	}{
		{name: "plain", in: "hello\nworld", want: "hello\nworld"},
		{name: "crlf and lone cr", in: "a\r\nb\rc", want: "a\nb\nc"},
		{name: "utf8 bom", in: "\xEF\xBB\xBFhi", want: "hi"},
		{name: "utf16 be", in: "\xFE\xFF\x00h\x00i", want: "hi"},
		{name: "escape codes allowed", in: "\x1b[1mbold\x1b[0m log line\n", want: "\x1b[1mbold\x1b[0m log line\n"},
		{name: "empty", in: "", errHas: "document is empty"},
		{name: "blank", in: " \n\t ", errHas: "document contains no text"},
		{name: "bom only", in: "\xEF\xBB\xBF", errHas: "document is empty"},
		{name: "nul", in: "abc\x00def", errHas: "contains NUL bytes"},
		{name: "latin1", in: "caf\xe9", errHas: "not valid UTF-8"},
		{name: "controls", in: strings.Repeat("\x01\x02\x03a", 50), errHas: "too many control characters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(TypeText, "f.txt", []byte(tc.in))
			if tc.errHas != "" {
				var e *engine.Error
				if !errors.As(err, &e) || e.Code != engine.CodeBadRequest || !strings.Contains(e.Message, tc.errHas) {
					t.Fatalf("got (%q, %v), want error containing %q", got, err, tc.errHas)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got (%q, %v), want %q", got, err, tc.want)
			}
		})
	}
}

func TestParseMarkdown(t *testing.T) {
	for _, tc := range []struct {
		name, in, want, errHas string
	}{
		{name: "toml front matter", in: "+++\ntitle = \"x\"\n+++\nbody", want: "title = \"x\"\n\nbody"},
		{name: "unclosed front matter kept", in: "---\nnot front matter", want: "---\nnot front matter"},
		{name: "unclosed comment", in: "text <!-- open\nmore", want: "text"},
		{name: "tilde fence keeps links", in: "~~~\n[a](b)\n~~~\n[c](d)", want: "~~~\n[a](b)\n~~~\nc"},
		{name: "mdx import", in: "import X from './x'\nexport const meta = {}\n# Title", want: "# Title"},
		{name: "only comment", in: "<!-- nothing -->", errHas: "document contains no text"},
		{name: "only front matter fences", in: "---\n---\n", errHas: "document contains no text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(TypeMarkdown, "f.md", []byte(tc.in))
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("got (%q, %v), want error containing %q", got, err, tc.errHas)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got (%q, %v), want %q", got, err, tc.want)
			}
		})
	}
}

func TestParseCSV(t *testing.T) {
	for _, tc := range []struct {
		name, in, want, errHas string
	}{
		{name: "basic", in: "a,b\n1,2\n3,4", want: "a: 1, b: 2\na: 3, b: 4"},
		{name: "blank header cell", in: "a,,c\n1,2,3", want: "a: 1, column 2: 2, c: 3"},
		{name: "short row", in: "a,b,c\n1", want: "a: 1"},
		{name: "lazy quote", in: "a,b\nsay \"hi\",2", want: "a: say \"hi\", b: 2"},
		{name: "tabs", in: "a\tb\n1\t2", want: "a: 1, b: 2"},
		{name: "crlf", in: "a,b\r\n1,2\r\n", want: "a: 1, b: 2"},
		{name: "blank rows skipped", in: "\n\na,b\n,\n1,2\n", want: "a: 1, b: 2"},
		{name: "empty", in: "", errHas: "document is empty"},
		{name: "only blank lines", in: "\n \n", errHas: "CSV file contains no rows"},
		{name: "only empty cells", in: ",,\n,,\n", errHas: "CSV file contains no rows"},
		{name: "binary", in: "a,b\x00", errHas: "NUL bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(TypeCSV, "f.csv", []byte(tc.in))
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("got (%q, %v), want error containing %q", got, err, tc.errHas)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got (%q, %v), want %q", got, err, tc.want)
			}
		})
	}
}

func TestParseXLSXErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, errHas string }{
		{"not a zip", "hello", "not a valid xlsx"},
		{"zip without workbook", string(fixture(t, "sheet.xlsx")[:30]), "not a valid xlsx"},
	} {
		if _, err := Parse(TypeXLSX, "f.xlsx", []byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.errHas) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.errHas)
		}
	}
}
