package parse

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/hearth-dev/hearth/engine"
)

// TestXLSRealFiles parses workbooks LibreOffice Calc wrote
// (testdata/docs/office/make.sh): sheet.xls from sheet.fods (shared
// strings split across CONTINUE records, 8- and 16-bit text, RK, MULRK,
// NUMBER, BOOLERR and FORMULA cells, an empty sheet), small.xls from
// small.csv (small enough to live in the compound file's mini stream).
func TestXLSRealFiles(t *testing.T) {
	text, err := Parse(TypeXLS, "sheet.xls", fixture(t, "office/sheet.xls"))
	if err != nil {
		t.Fatal(err)
	}
	// LibreOffice caches a string formula's result in .xls as the number
	// 0 with no STRING record, so E5 reads "0" (the xlsx export has "all
	// hives"); TestXLSRecords covers the STRING record.
	want := "Sheet: Hives\n" +
		"hive: Meadow, colonies: 12, weight kg: 3.75, healthy: TRUE, note: Café crème, naïve — ünïcödé.\n" +
		"hive: Orchard, colonies: 7, weight kg: -0.5, healthy: FALSE\n" +
		"hive: Ridge, colonies: 123456789, weight kg: 1E+20, healthy: TRUE, note: big numbers\n" +
		"hive: Total, colonies: 123456808, weight kg: 7.5, healthy: FALSE, note: 0\n" +
		"hive: Sparse, note: only the last column\n\n" +
		"Sheet: Notes\n" +
		"title: " + strings.TrimSpace(strings.Repeat("Lorem ipsum dolor sit amet ", 400)) + "\n" +
		"title: " + strings.TrimSpace(strings.Repeat("Ünïcödé ☃ ", 1000))
	if text != want {
		t.Errorf("sheet.xls:\n%.600q\nwant\n%.600q", text, want)
	}
	text, err = Parse("", "small.xls", fixture(t, "office/small.xls"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Sheet: small\ncity: Lyon, population: 522250, area: 47.87\ncity: Nantes, population: 320732, area: 65.19"; text != want {
		t.Errorf("small.xls:\n%q\nwant\n%q", text, want)
	}
}

// xlsAllRecords is a workbook with every cell record the reader knows.
func xlsAllRecords() []byte {
	wide := utf16.Encode([]rune("☃def"))
	sst := rec(xlsSST, le32(5), le32(4),
		xlStr("hive"),
		cat(le16(3), []byte{0x08}, le16(1), []byte("Bee"), make([]byte, 4)), // rich: one formatting run
		cat(le16(7), []byte{0}, []byte("abc")))                              // continues, 16-bit, below
	cont := rec(xlsContinue, strChars(wide, true),
		cat(le16(3), []byte{0x04}, le32(6), []byte("ext"), make([]byte, 6))) // phonetic data
	formula := func(row, col int, val []byte) []byte {
		return rec(xlsFormula, cellHead(row, col), val, le16(0), le32(0), le16(0))
	}
	sheet := cat(
		rec(xlsLabelSST, cellHead(0, 0), le32(0)), rec(xlsLabelSST, cellHead(0, 1), le32(1)), rec(xlsLabel, cellHead(0, 2), xlStr("note")),
		rec(xlsLabelSST, cellHead(1, 0), le32(2)), rec(xlsRK, cellHead(1, 1), le32(42<<2|2)), rec(xlsLabel, cellHead(1, 2), xlStr("Ünï ☃")),
		rec(xlsNumber, cellHead(2, 0), f64(3.5)),
		rec(xlsMulRK, le16(2), le16(1), le16(15), le32(1234<<2|3), le16(15), le32(0xFFFFFFE6), le16(2)),
		formula(3, 0, []byte{0, 0, 0, 0, 0, 0, 0xFF, 0xFF}),
		rec(xlsString, le16(15), []byte{0}, []byte("made by ")), rec(xlsContinue, []byte{0}, []byte("formula")),
		formula(3, 1, []byte{1, 0, 1, 0, 0, 0, 0xFF, 0xFF}), formula(3, 2, []byte{2, 0, 0x07, 0, 0, 0, 0xFF, 0xFF}),
		rec(xlsBoolErr, cellHead(4, 0), []byte{0, 0}), rec(xlsBoolErr, cellHead(4, 1), []byte{0x2A, 1}), formula(4, 2, f64(2.5)),
		bof(0x20), rec(xlsLabel, cellHead(9, 0), xlStr("chart text")), eof(), // an embedded chart
		rec(xlsLabelSST, cellHead(5, 0), le32(3)),
		rec(xlsLabel, cellHead(6, 300), xlStr("past column IV")),
	)
	return workbookStream(cat(sst, cont), map[string][]byte{
		"S1": sheet,
		"S2": cat(rec(xlsLabel, cellHead(0, 0), xlStr("k")), rec(xlsRString, cellHead(1, 0), xlStr("rich"), le16(0))),
	}, "S1", "S2")
}

// TestXLSRecords reads every cell record, shared strings continued with a
// change of character width, a string formula's STRING record continued,
// and skips an embedded chart.
func TestXLSRecords(t *testing.T) {
	text, err := Parse(TypeXLS, "b.xls", xlsOf(xlsAllRecords()))
	if err != nil {
		t.Fatal(err)
	}
	want := "Sheet: S1\n" +
		"hive: abc☃def, Bee: 42, note: Ünï ☃\n" +
		"hive: 3.5, Bee: 12.34, note: -7\n" +
		"hive: made by formula, Bee: TRUE, note: #DIV/0!\n" +
		"hive: FALSE, Bee: #N/A, note: 2.5\n" +
		"hive: ext\n\n" +
		"Sheet: S2\nk: rich"
	if text != want {
		t.Errorf("got\n%s\nwant\n%s", text, want)
	}
}

// TestXLSBadFiles: encrypted, old, corrupt and oversized workbooks fail
// with a reason, never a crash or a hang.
func TestXLSBadFiles(t *testing.T) {
	real := fixture(t, "office/sheet.xls")
	ok := xlsAllRecords()
	big := strings.Repeat("x", 8000)
	var cells []byte
	for row := 0; row < 3000; row++ { // 24 MB of text from 42 KB
		cells = append(cells, rec(xlsLabelSST, cellHead(row, 0), le32(0))...)
	}
	bomb := workbookStream(rec(xlsSST, le32(1), le32(1), xlStr(big)), map[string][]byte{"S": cells}, "S")
	empties := bytes.Repeat(xlStr(""), 2700)
	manyEmpty := workbookStream(cat(rec(xlsSST, le32(1<<31), le32(1<<31), empties), rec(xlsContinue, empties), rec(xlsContinue, empties)), nil)
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"not a compound file", []byte("hello, not a workbook at all"), "not an Excel 97-2003 workbook"},
		{"xlsx named .xls", fixture(t, "sheet.xlsx"), "not an Excel 97-2003 workbook"},
		{"truncated", real[:len(real)/2], "could not read xls"},
		{"encrypted (FILEPASS)", xlsOf(workbookStream(rec(xlsFilePass, le16(1), make([]byte, 52)), nil)), "xls workbook is encrypted"},
		{"encrypted package", cfbOf(map[string][]byte{"EncryptionInfo": {1}, "EncryptedPackage": {1}}, nil), "xls workbook is encrypted"},
		{"Excel 95", cfbOf(map[string][]byte{"Book": ok}, nil), "not Excel 5.0/95 or older; save the sheet as .xlsx or .csv"},
		{"BIFF5 BOF", xlsOf(rec(xlsBOF, le16(0x0500), le16(5))), "only Excel 97-2003 (BIFF8) workbooks are supported"},
		{"no Workbook stream", cfbOf(map[string][]byte{"Other": {1}}, nil), "has no Workbook stream"},
		{"no BOF", xlsOf(eof()), "does not start with a BOF"},
		{"record past the end", xlsOf(cat(bof(5), le16(xlsSST), le16(9000))), "could not read xls: file is corrupt"},
		{"SST string past its record", xlsOf(workbookStream(rec(xlsSST, le32(1), le32(1), le16(50), []byte{0}, []byte("short")), nil)), "could not read xls: file is corrupt"},
		{"FAT cycle", cfbOf(map[string][]byte{"Workbook": ok}, func(f []uint32) { f[3] = 2 }), "bad compound file structure"},
		{"FAT points outside the file", cfbOf(map[string][]byte{"Workbook": ok}, func(f []uint32) { f[2] = 1 << 30 }), "bad compound file structure"},
		{"directory cycle", cfbOf(map[string][]byte{"Workbook": ok}, func(f []uint32) { f[1] = 1 }), "bad compound file structure"},
		{"no cells", xlsOf(workbookStream(nil, map[string][]byte{"S": nil}, "S")), "xls workbook contains no cells with values"},
		{"past the output limit", xlsOf(bomb), "parser output limit of 100000 bytes"},
		{"shared strings past the output limit", xlsOf(manyEmpty), "parser output limit of 100000 bytes"},
	} {
		text, err := ParseWith(TypeXLS, "a.xls", tc.data, Options{MaxOutput: 100_000})
		var e *engine.Error
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &e) || e.Field != "document" {
			t.Errorf("%s: %.80q, %v; want an error with %q", tc.name, text, err, tc.want)
		}
		// Only old workbooks are for the external extractor (Tika reads them).
		if old := strings.HasPrefix(tc.name, "Excel 95") || strings.HasPrefix(tc.name, "BIFF5"); NeedsExtractor(err) != old {
			t.Errorf("%s: NeedsExtractor = %v", tc.name, !old)
		}
	}
}

// TestXLSHugeStreamSize: a directory entry claiming a stream larger than
// the file fails before anything is allocated for it.
func TestXLSHugeStreamSize(t *testing.T) {
	data := xlsOf(xlsAllRecords())
	// The Workbook entry is the second directory entry, in sector 1.
	copy(data[512*2+128+120:], le32(0xFFFFFFF0))
	alloc := allocated(func() { _, _ = Parse(TypeXLS, "a.xls", data) })
	if _, err := Parse(TypeXLS, "a.xls", data); err == nil || !strings.Contains(err.Error(), "bad compound file structure") {
		t.Fatalf("err = %v", err)
	}
	if alloc > 1<<20 {
		t.Errorf("allocated %d bytes for a %d-byte file", alloc, len(data))
	}
}

// FuzzParseXLS checks the xls reader on arbitrary bytes: no panic, and
// text within the output limit.
func FuzzParseXLS(f *testing.F) {
	f.Add(fixture(f, "office/small.xls"))
	f.Add(xlsOf(xlsAllRecords()))
	f.Fuzz(func(t *testing.T, data []byte) {
		text, err := ParseWith(TypeXLS, "f.xls", data, Options{MaxOutput: fuzzMaxOutput})
		if err == nil && len(text) > fuzzMaxOutput {
			t.Fatalf("text of %d bytes past the limit of %d", len(text), fuzzMaxOutput)
		}
		var e *engine.Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("not an engine error: %v", err)
		}
	})
}
