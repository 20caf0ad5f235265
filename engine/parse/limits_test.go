package parse

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// linearBound is the most text a text, markdown or CSV document of n bytes
// may produce: a CSV cell of two input bytes costs at most a label of
// maxLabel bytes, an ellipsis and two separators.
func linearBound(n int) int { return (maxLabel+8)*n + 64 }

// allocated returns the bytes f allocates (a bound on its peak memory).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// csvHeaderBomb is the shape of the CSV that rendered 120 KB into 1 GB: a
// header name of headerLen bytes repeated before each of rows one-byte
// cells.
func csvHeaderBomb(headerLen, rows int) []byte {
	var b bytes.Buffer
	b.WriteString(strings.Repeat("h", headerLen) + "\n")
	for i := 0; i < rows; i++ {
		b.WriteString("x\n")
	}
	return b.Bytes()
}

// csvWideBomb has cols columns of long names and rows rows of one-byte
// cells.
func csvWideBomb(cols, rows int) []byte {
	var b bytes.Buffer
	for i := 0; i < cols; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s%d", strings.Repeat("column name ", 50), i)
	}
	b.WriteByte('\n')
	row := strings.TrimSuffix(strings.Repeat("1,", cols), ",") + "\n"
	for i := 0; i < rows; i++ {
		b.WriteString(row)
	}
	return b.Bytes()
}

func TestCSVBombIsLinear(t *testing.T) {
	for name, data := range map[string][]byte{
		"long header": csvHeaderBomb(60_000, 30_000), // 120 KB: 1.8 GB before
		"wide header": csvWideBomb(200, 300),         // 240 KB: 73 MB before
	} {
		t.Run(name, func(t *testing.T) {
			var text string
			var err error
			alloc := allocated(func() { text, err = Parse(TypeCSV, "bomb.csv", data) })
			if err != nil {
				t.Fatal(err)
			}
			if len(text) > linearBound(len(data)) {
				t.Fatalf("%d bytes of CSV rendered %d bytes, more than %d", len(data), len(text), linearBound(len(data)))
			}
			// Input copies, the output and its growth (1.8 GB before the fix).
			if limit := uint64(2 * linearBound(len(data))); alloc > limit {
				t.Fatalf("parsing %d bytes allocated %d bytes, more than %d", len(data), alloc, limit)
			}
			if !strings.HasPrefix(text, strings.Repeat("h", maxLabel)+"…: x\n") && !strings.HasPrefix(text, "column name column name") {
				t.Fatalf("unexpected rendering %q", text[:min(len(text), 200)])
			}
		})
	}
}

func wantTooLarge(t *testing.T, err error, max int) {
	t.Helper()
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != engine.CodePayloadTooLarge || e.Field != "document" ||
		!strings.Contains(e.Message, fmt.Sprintf("limit of %d bytes (HEARTH_PARSE_MAX_OUTPUT)", max)) {
		t.Fatalf("got %v, want PAYLOAD_TOO_LARGE naming the limit of %d bytes", err, max)
	}
}

// TestOutputLimit checks that every parser stops at the output limit with
// an error naming it, allocating memory in proportion to the limit and
// the input, not to the text the document would have produced.
func TestOutputLimit(t *testing.T) {
	const max = 1 << 20
	big := strings.Repeat("All work and no play makes Jack a dull boy.\n", 30_000) // 1.3 MB
	for _, tc := range []struct {
		name, ct string
		data     []byte
	}{
		{"f.txt", TypeText, []byte(big)},
		{"f.md", TypeMarkdown, []byte("# Title\n\n" + big)},
		{"f.csv", TypeCSV, csvWideBomb(40, 2_000)}, // 1.1 MB of text per 100 KB
		{"f.xlsx", TypeXLSX, xlsxSharedBomb(t, 64<<10, 2_000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var text string
			var err error
			alloc := allocated(func() { text, err = ParseWith(tc.ct, tc.name, tc.data, Options{MaxOutput: max}) })
			wantTooLarge(t, err, max)
			if text != "" {
				t.Fatalf("text returned with the error")
			}
			if raceEnabled && tc.ct == TypeMarkdown {
				return // regexp's pooled matchers are dropped (race_on_test.go)
			}
			if limit := uint64(8*max + 8*len(tc.data)); alloc > limit {
				t.Fatalf("allocated %d bytes, more than %d", alloc, limit)
			}
		})
	}
}

// xlsxSharedBomb builds a workbook whose one shared string of strLen bytes
// fills cells cells: a few KB that render strLen*cells bytes.
func xlsxSharedBomb(t testing.TB, strLen, cells int) []byte {
	var sheet strings.Builder
	sheet.WriteString(`<worksheet><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>h</t></is></c></row>`)
	for i := 0; i < cells; i++ {
		fmt.Fprintf(&sheet, `<row r="%d"><c r="A%d" t="s"><v>0</v></c></row>`, i+2, i+2)
	}
	sheet.WriteString(`</sheetData></worksheet>`)
	return buildXLSX(t, map[string]string{
		"xl/sharedStrings.xml":     `<sst><si><t>` + strings.Repeat("A", strLen) + `</t></si></sst>`,
		"xl/worksheets/sheet1.xml": sheet.String(),
	})
}

// buildXLSX zips a minimal workbook with one sheet and the given parts.
func buildXLSX(t testing.TB, parts map[string]string) []byte {
	t.Helper()
	all := map[string]string{
		"xl/workbook.xml": `<workbook xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">` +
			`<sheets><sheet name="S" r:id="rId1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels": `<Relationships><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>`,
	}
	for k, v := range parts {
		all[k] = v
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range all {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestXLSXBombs(t *testing.T) {
	t.Run("shared string fan-out", func(t *testing.T) {
		data := xlsxSharedBomb(t, 64<<10, 16_000) // 1 GB of text before
		if len(data) > 100<<10 {
			t.Fatalf("bomb is %d bytes", len(data))
		}
		var err error
		alloc := allocated(func() { _, err = Parse(TypeXLSX, "bomb.xlsx", data) })
		wantTooLarge(t, err, DefaultMaxOutput)
		// The shared string, the XML tokens, and the output growing by
		// doubling up to the limit: the sum of its sizes is below 4 limits.
		if limit := uint64(6 * DefaultMaxOutput); alloc > limit {
			t.Fatalf("allocated %d bytes, more than %d", alloc, limit)
		}
	})
	t.Run("many empty shared strings", func(t *testing.T) {
		data := buildXLSX(t, map[string]string{
			"xl/sharedStrings.xml":     "<sst>" + strings.Repeat("<si/>", 100_000) + "</sst>",
			"xl/worksheets/sheet1.xml": `<worksheet><sheetData/></worksheet>`,
		})
		_, err := ParseWith(TypeXLSX, "bomb.xlsx", data, Options{MaxOutput: 1 << 20})
		wantTooLarge(t, err, 1<<20)
	})
	for name, sheet := range map[string]string{
		"one huge cell": `<worksheet><sheetData><row><c t="inlineStr"><is><t>` + strings.Repeat("A", 2<<20) + `</t></is></c></row></sheetData></worksheet>`,
		"deep nesting":  `<worksheet>` + strings.Repeat("<a>", 1000) + strings.Repeat("</a>", 1000) + `</worksheet>`,
		"huge comment":  `<worksheet><!--` + strings.Repeat("<a>", 1<<19) + `--><sheetData/></worksheet>`,
		"huge CDATA":    `<worksheet><sheetData><row><c t="inlineStr"><is><t><![CDATA[` + strings.Repeat("<", 2<<20) + `]]></t></is></c></row></sheetData></worksheet>`,
		"doctype":       `<!DOCTYPE worksheet [<!ENTITY a "aaaa">]><worksheet><sheetData/></worksheet>`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse(TypeXLSX, "bomb.xlsx", buildXLSX(t, map[string]string{"xl/worksheets/sheet1.xml": sheet}))
			var e *engine.Error
			if !errors.As(err, &e) || e.Code != engine.CodeBadRequest || !strings.Contains(e.Message, "could not read xlsx") {
				t.Fatalf("got %v", err)
			}
		})
	}
}

// TestXLSXStreaming checks the streaming reader against the shapes the
// whole-part decoder read: rich text, inline strings, booleans, gaps.
func TestXLSXStreaming(t *testing.T) {
	data := buildXLSX(t, map[string]string{
		"xl/sharedStrings.xml": `<sst><si><t>name</t></si><si><r><t>Ada </t></r><r><t>Lovelace</t></r><rPh><t>hint</t></rPh></si></sst>`,
		"xl/worksheets/sheet1.xml": `<worksheet><sheetData>` +
			`<row><c r="A1" t="s"><v>0</v></c><c r="C1" t="inlineStr"><is><t>ok</t></is></c></row>` +
			`<row><c r="A2" t="s"><v>1</v></c><c r="C2" t="b"><v>1</v></c></row>` +
			`<row><c r="C3" t="b"><v>0</v></c><c r="D3"><f>1+1</f><v>2</v></c></row>` +
			`</sheetData></worksheet>`,
	})
	got, err := Parse(TypeXLSX, "s.xlsx", data)
	want := "Sheet: S\nname: Ada Lovelace, ok: TRUE\nok: FALSE, column 4: 2"
	if err != nil || got != want {
		t.Fatalf("got (%q, %v), want %q", got, err, want)
	}
}
