package parse

import (
	"strings"
	"testing"
)

// BenchmarkParse reports each parser's throughput on the fixtures and on
// larger generated inputs.
func BenchmarkParse(b *testing.B) {
	var csv strings.Builder
	csv.WriteString("id,name,city,notes\n")
	for range 50_000 {
		csv.WriteString(`42,"Ada Lovelace",London,"first program, 1843"` + "\n")
	}
	md := strings.Repeat(string(fixture(b, "notes.md")), 5000)
	for _, bc := range []struct {
		name, ct, file string
		data           []byte
	}{
		{"pdf/simple", TypePDF, "x.pdf", fixture(b, "simple.pdf")},
		{"pdf/multipage", TypePDF, "x.pdf", fixture(b, "multipage.pdf")},
		{"xlsx/sheet", TypeXLSX, "x.xlsx", fixture(b, "sheet.xlsx")},
		{"text/code", TypeText, "main.go", []byte(strings.Repeat(string(fixture(b, "main.go")), 20000))},
		{"markdown/1.8MB", TypeMarkdown, "x.md", []byte(md)},
		{"csv/2.3MB", TypeCSV, "x.csv", []byte(csv.String())},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.data)))
			for b.Loop() {
				if _, err := Parse(bc.ct, bc.file, bc.data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
