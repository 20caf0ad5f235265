package parse

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"path"
	"strings"
)

// xlsx files are read with archive/zip and encoding/xml: the workbook's
// sheet list, the shared strings table and each sheet's cells. Every sheet
// becomes a "Sheet: name" line followed by its rows rendered like CSV rows
// ("label: value, ..."), the first non-blank row being the header.
// Formulas contribute their cached value; dates stay as Excel serial
// numbers, as no number formats are read.
//
// A zip inflates about a thousandfold, so the text of an xlsx is not
// linear in its size. Its parts are therefore read as token streams
// (never decoded whole into memory), rows are rendered as they end, and
// both the shared strings table and the text stop at the output limit.
// What is left unbounded by the limit is bounded by constants: the XML
// inflated from the whole workbook (xlsxMaxXML), the bytes of one text
// token (xlsxMaxToken, far above Excel's 32,767 characters per cell) and
// the element depth (see xmlGuard). The server also parses xlsx in the
// parser child process (package sandbox), under its memory limit and
// timeout.
const (
	xlsxMaxXML   = 256 << 20
	xlsxMaxToken = 1 << 20
	xlsxMaxDepth = 64
	xlsxMaxParts = 10_000
	xlsxMaxCols  = 16384 // Excel's last column is XFD
)

func errXLSXCorrupt() error { return docError("could not read xlsx: file is corrupt") }

func errXLSXTooLarge() error {
	return docError("could not read xlsx: the workbook inflates to more XML than Hearth reads from one document (%d MiB in all, %d KiB in one cell)",
		xlsxMaxXML>>20, xlsxMaxToken>>10)
}

func parseXLSX(data []byte, max int) (string, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", docError("could not read xlsx: file is not a valid xlsx (zip) archive")
	}
	if len(zr.File) > xlsxMaxParts {
		return "", docError("could not read xlsx: the archive has more than %d parts", xlsxMaxParts)
	}
	parts := map[string]*zip.File{}
	for _, f := range zr.File {
		parts[strings.TrimPrefix(f.Name, "/")] = f
	}
	x := &xlsxReader{parts: parts, budget: xlsxMaxXML, out: &capped{max: max}}
	sheets, err := x.sheets()
	if err != nil {
		return "", err
	}
	if err := x.sharedStrings(); err != nil {
		return "", err
	}
	for _, s := range sheets {
		if err := x.sheet(s); err != nil {
			return "", err
		}
	}
	if x.out.Len() == 0 {
		return "", docError("xlsx workbook contains no cells with values")
	}
	return x.out.String(), nil
}

// xlsxReader holds what one parse has read so far.
type xlsxReader struct {
	parts  map[string]*zip.File
	budget int64 // XML bytes left to inflate
	shared []string
	out    *capped
}

type xlsxSheet struct{ name, path string }

func (x *xlsxReader) sheets() ([]xlsxSheet, error) {
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
	if err := x.decodePart("xl/workbook.xml", &wb); err != nil {
		return nil, err
	}
	if err := x.decodePart("xl/_rels/workbook.xml.rels", &rels); err != nil {
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
		if p, ok := targets[s.RID]; ok && x.parts[p] != nil {
			out = append(out, xlsxSheet{s.Name, p})
		}
	}
	return out, nil
}

// xlsxMaxIndexPart bounds the workbook and relationships parts, which are
// decoded whole: they list sheets, a few bytes each.
const xlsxMaxIndexPart = 16 << 20

// decodePart decodes a small part whole.
func (x *xlsxReader) decodePart(name string, v any) error {
	f := x.parts[name]
	if f == nil {
		return docError("could not read xlsx: the workbook is missing parts (is it really an xlsx file?)")
	}
	rc, err := f.Open()
	if err != nil {
		return errXLSXCorrupt()
	}
	defer rc.Close()
	r := &xmlGuard{r: rc, budget: &x.budget, part: xlsxMaxIndexPart}
	if err := xml.NewDecoder(r).Decode(v); err != nil {
		if errors.Is(r.err, errXMLBudget) {
			return errXLSXTooLarge()
		}
		return errXLSXCorrupt()
	}
	return nil
}
