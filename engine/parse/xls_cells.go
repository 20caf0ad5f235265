package parse

import (
	"encoding/binary"
	"math"
	"unicode/utf16"
)

// xlsSheet renders one worksheet's cells, a row at a time: BIFF8 writes
// cells in row order, so a row ends when a cell of another row comes.
type xlsSheet struct {
	x     *xlsReader
	w     sheetWriter
	row   int
	cells []string
	done  bool
	// A FORMULA whose cached result is a string is followed by a STRING
	// record (and CONTINUE records for a long one) holding the string.
	pendRow, pendCol int
	pending          bool
	pendSegs         [][]byte
}

// record handles one record of the worksheet substream.
func (s *xlsSheet) record(r xlsRecord) error {
	le := binary.LittleEndian
	d := r.data
	if s.pending {
		switch {
		case r.typ == xlsString && s.pendSegs == nil:
			s.pendSegs = [][]byte{d}
			return nil
		case r.typ == xlsContinue && s.pendSegs != nil:
			s.pendSegs = append(s.pendSegs, d)
			return nil
		}
		if err := s.flushPending(); err != nil {
			return err
		}
	}
	if len(d) < 6 {
		return nil
	}
	row, col := int(le.Uint16(d)), int(le.Uint16(d[2:]))
	switch r.typ {
	case xlsLabelSST:
		if len(d) >= 10 {
			v := ""
			if i := le.Uint32(d[6:]); uint64(i) < uint64(len(s.x.shared)) {
				v = s.x.shared[i]
			}
			return s.put(row, col, v)
		}
	case xlsLabel, xlsRString:
		c := &xlsCursor{segs: [][]byte{d[6:]}}
		v, err := c.unicodeString(false)
		if err != nil {
			return errXLSCorrupt()
		}
		return s.put(row, col, v)
	case xlsNumber:
		if len(d) >= 14 {
			return s.put(row, col, formatXLSNumber(math.Float64frombits(le.Uint64(d[6:]))))
		}
	case xlsRK:
		if len(d) >= 10 {
			return s.put(row, col, formatXLSNumber(decodeRK(le.Uint32(d[6:]))))
		}
	case xlsMulRK:
		for k := 0; 10+6*k <= len(d)-2; k++ {
			if err := s.put(row, col+k, formatXLSNumber(decodeRK(le.Uint32(d[6+6*k:])))); err != nil {
				return err
			}
		}
	case xlsBoolErr:
		if len(d) >= 8 {
			return s.put(row, col, xlsBoolOrError(d[6], d[7] != 0))
		}
	case xlsFormula:
		if len(d) >= 14 {
			return s.formula(row, col, d[6:14])
		}
	}
	return nil
}

// formula places a FORMULA record's cached result.
func (s *xlsSheet) formula(row, col int, v []byte) error {
	if v[6] != 0xFF || v[7] != 0xFF {
		return s.put(row, col, formatXLSNumber(math.Float64frombits(binary.LittleEndian.Uint64(v))))
	}
	switch v[0] {
	case 0: // string, in the STRING record that follows
		s.pending, s.pendRow, s.pendCol, s.pendSegs = true, row, col, nil
	case 1:
		return s.put(row, col, xlsBoolOrError(v[2], false))
	case 2:
		return s.put(row, col, xlsBoolOrError(v[2], true))
	}
	return nil
}

func xlsBoolOrError(b byte, isErr bool) string {
	switch {
	case isErr:
		return xlsError(b)
	case b != 0:
		return "TRUE"
	}
	return "FALSE"
}

// flushPending places the string result of the last FORMULA, if its
// STRING record came.
func (s *xlsSheet) flushPending() error {
	s.pending = false
	if s.pendSegs == nil {
		return nil
	}
	c := &xlsCursor{segs: s.pendSegs}
	s.pendSegs = nil
	v, err := c.unicodeString(false)
	if err != nil {
		return errXLSCorrupt()
	}
	return s.put(s.pendRow, s.pendCol, v)
}

// put places a value, rendering the row before it when the row changes;
// cells past the last BIFF8 column are dropped.
func (s *xlsSheet) put(row, col int, v string) error {
	if col >= xlsMaxCols {
		return nil
	}
	if row != s.row {
		if !s.w.row(s.cells) {
			return ErrOutputTooLarge(s.x.out.max)
		}
		s.row, s.cells = row, s.cells[:0]
	}
	for len(s.cells) <= col {
		s.cells = append(s.cells, "")
	}
	s.cells[col] = v
	return nil
}

// end renders the last row and ends the sheet.
func (s *xlsSheet) end() error {
	if s.pending {
		if err := s.flushPending(); err != nil {
			return err
		}
	}
	s.done = true
	if !s.w.row(s.cells) || !s.w.end() {
		return ErrOutputTooLarge(s.x.out.max)
	}
	return nil
}

// readSST reads the shared strings table from the SST record and its
// CONTINUE records. The table counts against the output limit like the
// xlsx one: each entry costs its bytes plus a string header. A table
// shorter than its declared count keeps what it has.
func (x *xlsReader) readSST(segs [][]byte) error {
	if len(segs) == 0 || len(segs[0]) < 8 {
		return nil
	}
	unique := binary.LittleEndian.Uint32(segs[0][4:])
	segs[0] = segs[0][8:]
	c := &xlsCursor{segs: segs}
	size := 0
	for i := uint32(0); i < unique && !c.atEnd(); i++ {
		v, err := c.unicodeString(true)
		if err != nil {
			return errXLSCorrupt()
		}
		if size += len(v) + 16; size > x.out.max {
			return ErrOutputTooLarge(x.out.max)
		}
		x.shared = append(x.shared, v)
	}
	return nil
}

// xlsCursor reads a record's data continued in CONTINUE records. Where a
// string's characters continue in the next record, that record starts
// with a new option byte saying whether they are one or two bytes each.
type xlsCursor struct {
	segs [][]byte
	i    int
	pos  int
	bad  bool
}

func (c *xlsCursor) atEnd() bool {
	for c.i < len(c.segs) && c.pos >= len(c.segs[c.i]) {
		c.i, c.pos = c.i+1, 0
	}
	return c.i >= len(c.segs)
}

func (c *xlsCursor) byte() byte {
	if c.atEnd() {
		c.bad = true
		return 0
	}
	b := c.segs[c.i][c.pos]
	c.pos++
	return b
}

func (c *xlsCursor) u16() uint16 { return uint16(c.byte()) | uint16(c.byte())<<8 }

func (c *xlsCursor) u32() uint32 { return uint32(c.u16()) | uint32(c.u16())<<16 }

// skip passes n bytes, which may span records.
func (c *xlsCursor) skip(n int) {
	for n > 0 {
		if c.atEnd() {
			c.bad = true
			return
		}
		k := min(n, len(c.segs[c.i])-c.pos)
		c.pos, n = c.pos+k, n-k
	}
}

// unicodeString reads an XLUnicodeString, or with rich set an
// XLUnicodeRichExtendedString (SST entries): the formatting runs and the
// phonetic data after the characters are skipped.
func (c *xlsCursor) unicodeString(rich bool) (string, error) {
	n := int(c.u16())
	flags := c.byte()
	runs, ext := 0, 0
	if rich && flags&0x08 != 0 {
		runs = int(c.u16())
	}
	if rich && flags&0x04 != 0 {
		ext = int(c.u32() & 0x7FFFFFFF)
	}
	high := flags&0x01 != 0
	u := make([]uint16, 0, min(n, 8224))
	for k := 0; k < n && !c.bad; k++ {
		if c.i < len(c.segs) && c.pos >= len(c.segs[c.i]) {
			if c.atEnd() {
				c.bad = true
				break
			}
			high = c.byte()&0x01 != 0
		}
		if high {
			u = append(u, c.u16())
		} else {
			u = append(u, uint16(c.byte()))
		}
	}
	c.skip(4 * runs)
	c.skip(ext)
	if c.bad {
		return "", errXLSCorrupt()
	}
	return string(utf16.Decode(u)), nil
}
