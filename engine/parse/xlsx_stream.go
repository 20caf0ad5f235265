package parse

import (
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"
)

// xmlStream walks one part's tokens, keeping the path of element names
// from the root so that handlers can tell a <t> of a shared string from
// one of a phonetic hint.
type xmlStream struct {
	dec   *xml.Decoder
	guard *xmlGuard
	close func() error
	path  []string
}

func (x *xlsxReader) openStream(name string) (*xmlStream, error) {
	f := x.parts[name]
	rc, err := f.Open()
	if err != nil {
		return nil, errXLSXCorrupt()
	}
	g := &xmlGuard{r: rc, budget: &x.budget}
	return &xmlStream{dec: xml.NewDecoder(g), guard: g, close: rc.Close}, nil
}

// next returns the next start element, end element or character data; io.EOF
// at the end of the part.
func (s *xmlStream) next() (xml.Token, error) {
	for {
		tok, err := s.dec.Token()
		if err == io.EOF {
			if len(s.path) > 0 {
				return nil, errXLSXCorrupt()
			}
			return nil, io.EOF
		}
		if err != nil {
			if errors.Is(s.guard.err, errXMLBudget) {
				return nil, errXLSXTooLarge()
			}
			return nil, errXLSXCorrupt()
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(s.path) >= xlsxMaxDepth {
				return nil, errXLSXCorrupt()
			}
			s.path = append(s.path, t.Name.Local)
			return t, nil
		case xml.EndElement:
			s.path = s.path[:len(s.path)-1]
			return t, nil
		case xml.CharData:
			return t, nil
		}
	}
}

// under reports whether the innermost elements are names, outermost first.
func (s *xmlStream) under(names ...string) bool {
	if len(s.path) < len(names) {
		return false
	}
	tail := s.path[len(s.path)-len(names):]
	for i, n := range names {
		if tail[i] != n {
			return false
		}
	}
	return true
}

// sharedStrings reads the shared strings table; plain and rich text items
// both concatenate their <t> elements (phonetic hints are left out). The
// table counts against the output limit: each entry costs its bytes plus
// a string header, so a table of many empty items is bounded too.
func (x *xlsxReader) sharedStrings() error {
	if x.parts["xl/sharedStrings.xml"] == nil {
		return nil
	}
	s, err := x.openStream("xl/sharedStrings.xml")
	if err != nil {
		return err
	}
	defer s.close()
	var cur strings.Builder
	size := 0
	for {
		tok, err := s.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local == "si" {
				cur.Reset()
			}
		case xml.CharData:
			if s.under("si", "t") || s.under("si", "r", "t") {
				cur.Write(t)
			}
		case xml.EndElement:
			if t.Name.Local == "si" && !s.under("si") {
				size += cur.Len() + 16
				if size > x.out.max {
					return ErrOutputTooLarge(x.out.max)
				}
				x.shared = append(x.shared, cur.String())
			}
		}
	}
}

// sheet renders one sheet's rows as they end.
func (x *xlsxReader) sheet(sh xlsxSheet) error {
	s, err := x.openStream(sh.path)
	if err != nil {
		return err
	}
	defer s.close()
	w := sheetWriter{out: x.out, name: sh.name}
	var row []string
	var ref, typ string
	var v, inline strings.Builder
	for {
		tok, err := s.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch {
			case t.Name.Local == "row" && s.under("sheetData", "row"):
				row = row[:0]
			case t.Name.Local == "c" && s.under("row", "c"):
				ref, typ = attr(t, "r"), attr(t, "t")
				v.Reset()
				inline.Reset()
			}
		case xml.CharData:
			switch {
			case s.under("c", "v"):
				v.Write(t)
			case s.under("c", "is", "t"), s.under("c", "is", "r", "t"):
				inline.Write(t)
			}
		case xml.EndElement:
			switch {
			case t.Name.Local == "c" && s.under("row"):
				row = x.place(row, ref, typ, v.String(), inline.String())
			case t.Name.Local == "row" && s.under("sheetData"):
				if !w.row(row) {
					return ErrOutputTooLarge(x.out.max)
				}
			}
		}
	}
	if !w.end() {
		return ErrOutputTooLarge(x.out.max)
	}
	return nil
}

// place puts a cell's value in row at its column (the next one when the
// reference has none); cells past Excel's last column are dropped.
func (x *xlsxReader) place(row []string, ref, typ, v, inline string) []string {
	col := columnIndex(ref)
	if col < 0 {
		col = len(row)
	}
	if col >= xlsxMaxCols {
		return row
	}
	switch typ {
	case "s":
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 0 && n < len(x.shared) {
			v = x.shared[n]
		}
	case "inlineStr":
		v = inline
	case "b":
		if strings.TrimSpace(v) == "1" {
			v = "TRUE"
		} else {
			v = "FALSE"
		}
	}
	for len(row) <= col {
		row = append(row, "")
	}
	row[col] = v
	return row
}

func attr(e xml.StartElement, local string) string {
	for _, a := range e.Attr {
		if a.Name.Local == local && a.Name.Space == "" {
			return a.Value
		}
	}
	return ""
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

// sheetWriter renders a sheet's rows the way parseCSV does, the first
// non-blank row being the header, under a "Sheet: name" line written
// before the first row. A sheet with only a header row renders that row.
type sheetWriter struct {
	out     *capped
	name    string
	header  []string
	labels  []string
	rows    int
	started bool
}

func (w *sheetWriter) start() {
	if w.started {
		return
	}
	w.started = true
	if w.out.Len() > 0 {
		w.out.WriteString("\n\n")
	}
	w.out.WriteString("Sheet: " + w.name + "\n")
}

// row renders one row; false when the output passed its limit.
func (w *sheetWriter) row(rec []string) bool {
	if blankRecord(rec) {
		return true
	}
	if w.header == nil {
		w.header = makeHeader(rec)
		w.labels = makeLabels(w.header)
		return true
	}
	w.start()
	if w.rows > 0 {
		w.out.WriteByte('\n')
	}
	w.rows++
	return writeRow(w.out, w.labels, rec)
}

func (w *sheetWriter) end() bool {
	if w.header != nil && w.rows == 0 {
		w.start()
		for i, h := range w.header {
			if i > 0 {
				w.out.WriteString(", ")
			}
			w.out.WriteString(h)
			if w.out.over() {
				return false
			}
		}
	}
	return !w.out.over()
}
