package parse

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"io"
	"path"
	"strconv"
	"strings"
)

// xlsx files are read with archive/zip and encoding/xml: the workbook's
// sheet list, the shared strings table and each sheet's cells. Every sheet
// becomes a "Sheet: name" line followed by its rows rendered like CSV rows
// ("header: value, ..."), the first non-blank row being the header.
// Formulas contribute their cached value; dates stay as Excel serial
// numbers, as no number formats are read.

// xlsxMaxPart bounds the decompressed size of one part of the zip, so a zip
// bomb cannot take the server's memory.
const xlsxMaxPart = 256 << 20

func parseXLSX(data []byte) (string, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", docError("could not read xlsx: file is not a valid xlsx (zip) archive")
	}
	parts := map[string]*zip.File{}
	for _, f := range zr.File {
		parts[strings.TrimPrefix(f.Name, "/")] = f
	}
	sheets, err := xlsxSheets(parts)
	if err != nil {
		return "", err
	}
	shared, err := xlsxSharedStrings(parts["xl/sharedStrings.xml"])
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, s := range sheets {
		rows, err := xlsxRows(parts[s.path], shared)
		if err != nil {
			return "", err
		}
		body := renderRows(rows)
		if body == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("Sheet: " + s.name + "\n" + body)
	}
	if b.Len() == 0 {
		return "", docError("xlsx workbook contains no cells with values")
	}
	return b.String(), nil
}

type xlsxSheet struct{ name, path string }

func xlsxSheets(parts map[string]*zip.File) ([]xlsxSheet, error) {
	var wb struct {
		Sheets []struct {
			Name string `xml:"name,attr"`
			RID  string `xml:"http://schemas.openxmlformats.org/officeDocument/2006/relationships id,attr"`
		} `xml:"sheets>sheet"`
	}
	var rels struct {
		Rels []struct {
			ID     string `xml:"Id,attr"`
			Target string `xml:"Target,attr"`
		} `xml:"Relationship"`
	}
	if err := readXMLPart(parts["xl/workbook.xml"], &wb); err != nil {
		return nil, err
	}
	if err := readXMLPart(parts["xl/_rels/workbook.xml.rels"], &rels); err != nil {
		return nil, err
	}
	targets := map[string]string{}
	for _, r := range rels.Rels {
		t := r.Target
		if strings.HasPrefix(t, "/") {
			t = strings.TrimPrefix(t, "/")
		} else {
			t = path.Join("xl", t)
		}
		targets[r.ID] = t
	}
	var out []xlsxSheet
	for _, s := range wb.Sheets {
		if p, ok := targets[s.RID]; ok && parts[p] != nil {
			out = append(out, xlsxSheet{s.Name, p})
		}
	}
	return out, nil
}

func readXMLPart(f *zip.File, v any) error {
	if f == nil {
		return docError("could not read xlsx: the workbook is missing parts (is it really an xlsx file?)")
	}
	rc, err := f.Open()
	if err != nil {
		return docError("could not read xlsx: file is corrupt")
	}
	defer rc.Close()
	if err := xml.NewDecoder(io.LimitReader(rc, xlsxMaxPart)).Decode(v); err != nil {
		return docError("could not read xlsx: file is corrupt")
	}
	return nil
}

// xlsxSharedStrings reads the shared strings table; plain and rich text
// items both concatenate their <t> elements.
func xlsxSharedStrings(f *zip.File) ([]string, error) {
	if f == nil {
		return nil, nil
	}
	var sst struct {
		Items []struct {
			T    string   `xml:"t"`
			Runs []string `xml:"r>t"`
		} `xml:"si"`
	}
	if err := readXMLPart(f, &sst); err != nil {
		return nil, err
	}
	out := make([]string, len(sst.Items))
	for i, it := range sst.Items {
		out[i] = it.T + strings.Join(it.Runs, "")
	}
	return out, nil
}

// xlsxRows returns the sheet's rows as cells placed by their column, blank
// cells as "".
func xlsxRows(f *zip.File, shared []string) ([][]string, error) {
	var ws struct {
		Rows []struct {
			Cells []struct {
				Ref    string `xml:"r,attr"`
				Type   string `xml:"t,attr"`
				V      string `xml:"v"`
				Inline struct {
					T    string   `xml:"t"`
					Runs []string `xml:"r>t"`
				} `xml:"is"`
			} `xml:"c"`
		} `xml:"sheetData>row"`
	}
	if err := readXMLPart(f, &ws); err != nil {
		return nil, err
	}
	rows := make([][]string, 0, len(ws.Rows))
	for _, r := range ws.Rows {
		var row []string
		for i, c := range r.Cells {
			col := columnIndex(c.Ref)
			if col < 0 {
				col = max(i, len(row))
			}
			if col > 16384 { // Excel's last column is XFD
				continue
			}
			v := c.V
			switch c.Type {
			case "s":
				if n, err := strconv.Atoi(strings.TrimSpace(c.V)); err == nil && n >= 0 && n < len(shared) {
					v = shared[n]
				}
			case "inlineStr":
				v = c.Inline.T + strings.Join(c.Inline.Runs, "")
			case "b":
				v = "FALSE"
				if strings.TrimSpace(c.V) == "1" {
					v = "TRUE"
				}
			}
			for len(row) <= col {
				row = append(row, "")
			}
			row[col] = v
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// columnIndex turns the letters of a cell reference ("C7") into a 0-based
// column, or -1 when there are none.
func columnIndex(ref string) int {
	n := 0
	i := 0
	for ; i < len(ref) && i < 4; i++ {
		c := ref[i] | 0x20
		if c < 'a' || c > 'z' {
			break
		}
		n = n*26 + int(c-'a'+1)
	}
	if i == 0 {
		return -1
	}
	return n - 1
}

// renderRows renders rows the way parseCSV does, the first non-blank row
// being the header. A sheet with only a header row renders that row.
func renderRows(rows [][]string) string {
	var header []string
	var b strings.Builder
	for _, rec := range rows {
		if blankRecord(rec) {
			continue
		}
		if header == nil {
			header = makeHeader(rec)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		writeRow(&b, header, rec)
	}
	if header != nil && b.Len() == 0 {
		return strings.Join(header, ", ")
	}
	return b.String()
}
