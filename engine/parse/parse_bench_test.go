package parse

import (
	"fmt"
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
	var sheet strings.Builder
	sheet.WriteString(`<worksheet><sheetData><row><c r="A1" t="inlineStr"><is><t>id</t></is></c><c r="B1" t="s"><v>0</v></c></row>`)
	for i := range 50_000 {
		fmt.Fprintf(&sheet, `<row><c r="A%d"><v>%d</v></c><c r="B%d" t="s"><v>1</v></c></row>`, i+2, i, i+2)
	}
	sheet.WriteString(`</sheetData></worksheet>`)
	xlsx := buildXLSX(b, map[string]string{
		"xl/sharedStrings.xml":     `<sst><si><t>name</t></si><si><t>Ada Lovelace</t></si></sst>`,
		"xl/worksheets/sheet1.xml": sheet.String(),
	})
	for _, bc := range []struct {
		name, ct, file string
		data           []byte
	}{
		{"pdf/simple", TypePDF, "x.pdf", fixture(b, "simple.pdf")},
		{"pdf/multipage", TypePDF, "x.pdf", fixture(b, "multipage.pdf")},
		{"xlsx/sheet", TypeXLSX, "x.xlsx", fixture(b, "sheet.xlsx")},
		{"xlsx/50k-rows", TypeXLSX, "x.xlsx", xlsx},
		{"xls/sheet", TypeXLS, "x.xls", fixture(b, "office/sheet.xls")},
		{"csv/header-bomb", TypeCSV, "x.csv", csvHeaderBomb(60_000, 30_000)},
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
