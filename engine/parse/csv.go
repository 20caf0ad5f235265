package parse

import (
	"encoding/csv"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// parseCSV renders a CSV file one row per line, each cell prefixed by its
// column header ("name: Ada, born: 1815"), so that any chunk of the result
// still says what its values mean. The first non-blank record is the
// header. Quotes are read leniently, rows may be ragged (cells beyond the
// header are named "column N", missing cells are left out), newlines inside
// cells become spaces, and the delimiter is a comma unless the header line
// has none and has semicolons or tabs instead.
//
// The output is linear in the input: a header name is shortened to
// maxLabel bytes before it labels cells, so a non-blank cell of at least
// two input bytes (value and delimiter) costs at most maxLabel+4 bytes of
// labels. Rendering stops as soon as the text passes max.
func parseCSV(data []byte, max int) (string, error) {
	text, err := decodeText(data)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(text) == "" {
		return "", docError("CSV file contains no rows")
	}
	r := csv.NewReader(strings.NewReader(text))
	r.Comma = sniffDelimiter(text)
	r.LazyQuotes = true
	r.FieldsPerRecord = -1
	r.ReuseRecord = true

	var labels []string
	b := &capped{max: max}
	b.Grow(min(len(text)*2, max+1))
	rows := 0
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return "", docError("could not read CSV: line %d: %v", pe.StartLine, pe.Err)
			}
			return "", docError("could not read CSV: %v", err)
		}
		if blankRecord(rec) {
			continue
		}
		if labels == nil {
			labels = makeLabels(makeHeader(rec))
			continue
		}
		if rows > 0 {
			b.WriteByte('\n')
		}
		rows++
		if !writeRow(b, labels, rec) {
			return "", ErrOutputTooLarge(max)
		}
	}
	if labels == nil {
		return "", docError("CSV file contains no rows")
	}
	if rows == 0 {
		return "", docError("CSV file has a header row but no data rows")
	}
	return b.String(), nil
}

// cell trims a value and folds the newlines inside it into spaces, so that
// each row stays on one line.
func cell(v string) string {
	v = strings.TrimSpace(v)
	if strings.IndexByte(v, '\n') >= 0 {
		v = strings.Join(strings.Fields(v), " ")
	}
	return v
}

func blankRecord(rec []string) bool {
	for _, v := range rec {
		if strings.TrimSpace(v) != "" {
			return false
		}
	}
	return true
}

// sniffDelimiter picks ';' or '\t' when the first line has no comma but has
// one of those (spreadsheets in many locales export with semicolons).
func sniffDelimiter(text string) rune {
	line, _, _ := strings.Cut(text, "\n")
	if strings.Contains(line, ",") {
		return ','
	}
	if strings.Count(line, ";") >= strings.Count(line, "\t") && strings.Contains(line, ";") {
		return ';'
	}
	if strings.Contains(line, "\t") {
		return '\t'
	}
	return ','
}

// makeHeader copies a header record, naming blank headers "column N".
func makeHeader(rec []string) []string {
	header := make([]string, len(rec))
	for i, h := range rec {
		header[i] = cell(h)
		if header[i] == "" {
			header[i] = "column " + strconv.Itoa(i+1)
		}
	}
	return header
}

// maxLabel bounds the bytes of a header name repeated before each cell;
// longer names are cut at a rune boundary and end with "…".
const maxLabel = 40

// makeLabels returns the header names as cell labels, at most maxLabel
// bytes plus the ellipsis each.
func makeLabels(header []string) []string {
	labels := make([]string, len(header))
	for i, h := range header {
		if len(h) > maxLabel {
			cut := maxLabel
			for cut > 0 && !utf8.RuneStart(h[cut]) {
				cut--
			}
			h = strings.TrimSpace(h[:cut]) + "…"
		}
		labels[i] = h
	}
	return labels
}

// writeRow writes "label: value" pairs for the non-blank cells of rec and
// reports false as soon as b passes its limit.
func writeRow(b *capped, labels, rec []string) bool {
	first := true
	for i, v := range rec {
		v = cell(v)
		if v == "" {
			continue
		}
		if !first {
			b.WriteString(", ")
		}
		first = false
		if i < len(labels) {
			b.WriteString(labels[i])
		} else {
			b.WriteString("column " + strconv.Itoa(i+1))
		}
		b.WriteString(": ")
		b.WriteString(v)
		if b.over() {
			return false
		}
	}
	return true
}
