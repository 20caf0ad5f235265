package parse

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/dslipak/pdf"
)

// TestPDFFixturesReadableByLibrary checks that the generated fixtures are
// real PDFs as far as dslipak/pdf itself is concerned, not only for our
// interpreter.
func TestPDFFixturesReadableByLibrary(t *testing.T) {
	for file, words := range map[string][]string{
		"simple.pdf":    {"Hearth PDF fixture", "lazy dog"},
		"multipage.pdf": {"Page one title", "Page three ends here."},
	} {
		data := fixture(t, file)
		r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		rd, err := r.GetPlainText()
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		b, _ := io.ReadAll(rd)
		for _, w := range words {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s: library text %q lacks %q", file, b, w)
			}
		}
	}
}

func TestPDFFraming(t *testing.T) {
	simple := fixture(t, "simple.pdf")
	for _, tc := range []struct {
		name string
		data []byte
		err  string
	}{
		{"pdf 2.0 header", append([]byte("%PDF-2.0"), simple[8:]...), ""},
		{"header followed by a space", append([]byte("%PDF-1.4 "), simple[9:]...), ""},
		{"junk after EOF", append(bytes.Clone(simple), bytes.Repeat([]byte("junk "), 100)...), ""},
		{"not a pdf", []byte("hello world"), "does not start with %PDF-"},
		{"header only", []byte("%PDF-1.4\n"), "corrupt"},
		{"eof only", []byte("%PDF-1.4\n%%EOF"), "corrupt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(TypePDF, "x.pdf", tc.data)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got (%q, %v), want error containing %q", got, err, tc.err)
				}
				return
			}
			if err != nil || !strings.HasPrefix(got, "Hearth PDF fixture") {
				t.Fatalf("got (%q, %v)", got, err)
			}
		})
	}
}

// TestPDFLoopsStop feeds inputs that make dslipak/pdf loop forever when
// given to it directly: each must end with a corrupt-file error.
func TestPDFLoopsStop(t *testing.T) {
	simple := fixture(t, "simple.pdf")
	xref := bytes.LastIndex(simple, []byte("\nxref\n")) + 1
	prevCycle := bytes.Replace(simple, []byte("trailer\n<< "), fmt.Appendf(nil, "trailer\n<< /Prev %d ", xref), 1)
	unclosed := bytes.Replace(simple, []byte("(Hearth PDF fixture) Tj"), []byte("(Hearth PDF fixture Tj "), 1)
	for name, data := range map[string][]byte{
		"trailer Prev points to itself":  prevCycle,
		"unterminated string in content": unclosed,
		"truncated inside the trailer":   append(simple[:bytes.LastIndex(simple, []byte("/Root"))], []byte("\nstartxref\n"+fmt.Sprint(xref)+"\n%%EOF\n"+strings.Repeat(" ", 100))...),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse(TypePDF, "x.pdf", data)
			if err == nil || !strings.Contains(err.Error(), "corrupt") {
				t.Fatalf("got %v, want a corrupt-file error", err)
			}
		})
	}
}

func TestPDFTextLayout(t *testing.T) {
	x := &pdfText{max: 1 << 20}
	x.write("Hello", 0, 700, 30, 700, 12)
	x.write("world", 31, 700, 60, 700, 12)  // a 1pt gap: no space
	x.write("again", 70, 700, 100, 700, 12) // a 10pt gap: a space
	x.write("next", 0, 686, 20, 686, 12)    // one line down
	x.write("para", 0, 640, 20, 640, 12)    // well below: a paragraph
	x.write("\x00\ufffd", 30, 640, 40, 640, 12)
	if got, want := x.b.String(), "Helloworld again\nnext\n\npara"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
