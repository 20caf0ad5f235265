// Command gen writes the document fixtures in testdata/docs. The PDFs and
// the xlsx workbook are built byte by byte here, since nothing may be
// downloaded; the committed files are its output. Run it from the
// repository root after changing it:
//
//	go run ./testdata/docs/gen
package main

import (
	"archive/zip"
	"bytes"
	"compress/zlib"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
)

const dir = "testdata/docs"

func main() {
	simple := pdfDoc{pages: []pdfPage{{lines: []string{
		"Hearth PDF fixture",
		"The quick brown fox jumps over the lazy dog.",
		"Second paragraph: memories, chunks and embeddings.",
	}, gapBefore: map[int]bool{2: true}}}}
	multi := pdfDoc{nested: true, compress: true, pages: []pdfPage{
		{lines: []string{"Page one title", "Alpha beta gamma."}},
		{lines: []string{"Page two: kerned words"}, tj: true},
		{lines: []string{"Page three ends here."}},
	}}
	scanned := pdfDoc{pages: []pdfPage{{drawOnly: true}}}
	encrypted := pdfDoc{encrypt: true, pages: []pdfPage{{lines: []string{"Secret text"}}}}
	badPage := pdfDoc{pages: []pdfPage{{lines: []string{"unreadable"}, badFilter: true}, {lines: []string{"The second page survives."}}}}
	badOnly := pdfDoc{pages: []pdfPage{{lines: []string{"unreadable"}, badFilter: true}}}
	noWidths := pdfDoc{noWidths: true, pages: []pdfPage{{lines: []string{"Fonts without widths", "still give words"}}}}

	simpleBytes := simple.bytes()
	files := map[string][]byte{
		"simple.pdf":      simpleBytes,
		"multipage.pdf":   multi.bytes(),
		"scanned.pdf":     scanned.bytes(),
		"encrypted.pdf":   encrypted.bytes(),
		"nowidths.pdf":    noWidths.bytes(),
		"badpage.pdf":     badPage.bytes(),
		"badfilter.pdf":   badOnly.bytes(),
		"truncated.pdf":   simpleBytes[:len(simpleBytes)/2],
		"corrupt.pdf":     []byte("%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 9 0 R >> endobj\ngarbage garbage\nstartxref\n99999\n%%EOF\n"),
		"notes.md":        []byte(markdown),
		"people.csv":      []byte(peopleCSV),
		"semicolon.csv":   []byte("name;city\nAda;London\nLinus;Helsinki\n"),
		"header-only.csv": []byte("name,city\n"),
		"main.go":         []byte(goCode),
		"empty.txt":       {},
		"binary.txt":      append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 64)...),
		"crlf-bom.txt":    []byte("\xEF\xBB\xBFfirst line\r\nsecond line\r\n\r\nthird paragraph\r\n"),
		"utf16.txt":       utf16LE("Grüße aus Köln\r\nzweite Zeile"),
		"sheet.xlsx":      xlsx(),
		"objstm-hang.pdf": objStmHang(),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

const markdown = `---
title: Hearth notes
tags: [memory, rag]
---

<!-- editor comment: not for readers -->
# Getting started

Hearth serves the [Langbase API](https://langbase.com/docs) from one binary.
![Architecture diagram](img/arch.png)

## Install

` + "```sh\ngo install github.com/hearth-dev/hearth@latest # [not a link](x)\n```" + `



- one
- two

[docs]: https://example.com/docs
`

const peopleCSV = `name,role,"notes, free text"
Ada Lovelace,engineer,"wrote the first program, 1843"
"Grace ""Amazing"" Hopper",admiral,"line one
line two"

Linus,,kernel,extra cell
Ken
`

const goCode = `package main

import "fmt"

// main prints a greeting.
func main() {
	fmt.Println("hello, hearth")
}
`

func utf16LE(s string) []byte {
	out := []byte{0xFF, 0xFE}
	for _, r := range s {
		out = append(out, byte(r), byte(r>>8)) // all runes here are in the BMP
	}
	return out
}

type pdfPage struct {
	lines     []string
	gapBefore map[int]bool // line indexes preceded by a paragraph gap
	tj        bool         // show words with TJ and kerning gaps instead of spaces
	drawOnly  bool         // no text at all, as in a scanned page
	badFilter bool         // declare a stream filter the library does not know (it panics)
}

type pdfDoc struct {
	pages    []pdfPage
	nested   bool // put the pages under an intermediate Pages node
	compress bool // FlateDecode the content streams
	encrypt  bool // add an /Encrypt dictionary to the trailer
	noWidths bool // leave /Widths out of the font
}

// bytes writes the document: catalog 1, root pages 2, font 3, then per
// page a page object and its content stream, then the optional middle
// Pages node and Encrypt dictionary.
func (d pdfDoc) bytes() []byte {
	var objs []string
	add := func(s string) int { objs = append(objs, s); return len(objs) }
	add("<< /Type /Catalog /Pages 2 0 R >>")
	add("") // root Pages, filled in below
	font := "<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding"
	if !d.noWidths {
		font += " /FirstChar 32 /LastChar 126 /Widths [" + strings.TrimSpace(strings.Repeat("600 ", 95)) + "]"
	}
	add(font + " >>")
	var kids []int
	parent := 2
	if d.nested {
		parent = 4 + 2*len(d.pages)
	}
	for _, p := range d.pages {
		kids = append(kids, len(objs)+1)
		add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", parent, len(objs)+2))
		add(d.stream(p.content(), p.badFilter))
	}
	refs := func(ids []int) string {
		var s []string
		for _, id := range ids {
			s = append(s, fmt.Sprintf("%d 0 R", id))
		}
		return strings.Join(s, " ")
	}
	if d.nested {
		objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count %d >>", parent, len(d.pages))
		add(fmt.Sprintf("<< /Type /Pages /Parent 2 0 R /Kids [%s] /Count %d >>", refs(kids), len(d.pages)))
	} else {
		objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", refs(kids), len(d.pages))
	}
	encrypt := 0
	if d.encrypt {
		o := strings.Repeat("AB", 32)
		encrypt = add(fmt.Sprintf("<< /Filter /Standard /V 1 /R 2 /Length 40 /P -44 /O <%s> /U <%s> >>", o, o))
	}

	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xE2\xE3\xCF\xD3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	trailer := fmt.Sprintf("/Size %d /Root 1 0 R", len(objs)+1)
	if encrypt > 0 {
		trailer += fmt.Sprintf(" /Encrypt %d 0 R /ID [<%s> <%s>]", encrypt, strings.Repeat("01", 16), strings.Repeat("01", 16))
	}
	fmt.Fprintf(&b, "trailer\n<< %s >>\nstartxref\n%d\n%%%%EOF\n", trailer, xref)
	return b.Bytes()
}

func (d pdfDoc) stream(content string, badFilter bool) string {
	if badFilter {
		return fmt.Sprintf("<< /Length %d /Filter /LZWDecode >>\nstream\n%s\nendstream", len(content), content)
	}
	if !d.compress {
		return fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content)
	}
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write([]byte(content))
	w.Close()
	return fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.String())
}

// content lays lines out top-down, 14 points apart, with an extra 20
// points before a paragraph gap.
func (p pdfPage) content() string {
	if p.drawOnly {
		return "0.5 g\n72 500 200 100 re\nf"
	}
	var b strings.Builder
	b.WriteString("BT\n/F1 12 Tf\n72 720 Td\n")
	for i, line := range p.lines {
		if i > 0 {
			dy := -14
			if p.gapBefore[i] {
				dy = -34
			}
			fmt.Fprintf(&b, "0 %d Td\n", dy)
		}
		if p.tj {
			// Words as separate strings; the -600 gap (one Courier space)
			// is how many generators encode a word space.
			var parts []string
			for _, w := range strings.Fields(line) {
				parts = append(parts, "("+escape(w)+")")
			}
			fmt.Fprintf(&b, "[%s] TJ\n", strings.Join(parts, " -600 "))
			continue
		}
		fmt.Fprintf(&b, "(%s) Tj\n", escape(line))
	}
	b.WriteString("ET")
	return b.String()
}

func escape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(s)
}

// objStmHang builds a PDF 1.5 file whose page tree root lives in a
// compressed object stream and is cut off inside its dictionary. The PDF
// library lexes object streams with an end-of-input that yields newlines
// forever, so it loops without end on this file: only a time limit from
// outside the parsing goroutine (the sandbox child) stops it.
func objStmHang() []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n%\xE2\xE3\xCF\xD3\n")
	off := map[int]int{1: b.Len()}
	b.WriteString("1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n")
	head := "2 0 "
	body := head + "<< /Type /Pages /Kids [3 0 R] /Count 1 " // no ">>"
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write([]byte(body))
	w.Close()
	off[4] = b.Len()
	fmt.Fprintf(&b, "4 0 obj\n<< /Type /ObjStm /N 1 /First %d /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream\nendobj\n", len(head), z.Len(), z.String())
	off[3] = b.Len()
	b.WriteString("3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>\nendobj\n")
	xref := b.Len()
	// The cross-reference stream (object 5): type, field 2 (4 bytes), field 3 (2 bytes).
	var rows bytes.Buffer
	row := func(typ byte, f2 uint32, f3 uint16) {
		rows.WriteByte(typ)
		rows.Write([]byte{byte(f2 >> 24), byte(f2 >> 16), byte(f2 >> 8), byte(f2), byte(f3 >> 8), byte(f3)})
	}
	row(0, 0, 65535)
	row(1, uint32(off[1]), 0)
	row(2, 4, 0) // object 2: index 0 of object stream 4
	row(1, uint32(off[3]), 0)
	row(1, uint32(off[4]), 0)
	row(1, uint32(xref), 0)
	fmt.Fprintf(&b, "5 0 obj\n<< /Type /XRef /Size 6 /W [1 4 2] /Root 1 0 R /Length %d >>\nstream\n", rows.Len())
	b.Write(rows.Bytes())
	fmt.Fprintf(&b, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", xref)
	return b.Bytes()
}

// xlsx builds a two-sheet workbook: shared strings, an inline string, a
// number, a boolean, a gap between columns, and a blank sheet.
func xlsx() []byte {
	parts := []struct{ name, body string }{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>`},
		{"xl/workbook.xml", `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Staff" sheetId="1" r:id="rId1"/><sheet name="Empty" sheetId="2" r:id="rId2"/></sheets></workbook>`},
		{"xl/_rels/workbook.xml.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Target="worksheets/sheet1.xml" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet"/><Relationship Id="rId2" Target="worksheets/sheet2.xml" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet"/></Relationships>`},
		{"xl/sharedStrings.xml", `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>name</t></si><si><t>age</t></si><si><t>active</t></si><si><r><t>Ada </t></r><r><t>Lovelace</t></r></si></sst>`},
		{"xl/worksheets/sheet1.xml", `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` +
			`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="D1" t="s"><v>2</v></c></row>` +
			`<row r="2"><c r="A2" t="s"><v>3</v></c><c r="B2"><v>36</v></c><c r="D2" t="b"><v>1</v></c></row>` +
			`<row r="3"><c r="A3" t="inlineStr"><is><t>Grace</t></is></c><c r="D3" t="b"><v>0</v></c></row>` +
			`</sheetData></worksheet>`},
		{"xl/worksheets/sheet2.xml", `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData/></worksheet>`},
	}
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, p := range parts {
		w, err := zw.Create(p.name)
		if err != nil {
			log.Fatal(err)
		}
		w.Write([]byte(p.body))
	}
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	return b.Bytes()
}
