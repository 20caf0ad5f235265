package parse

import (
	"encoding/binary"
	"math"
	"strconv"
	"unicode/utf16"
)

// Excel 97-2003 workbooks (.xls) are BIFF8 record streams in a compound
// file (cfb.go), specified in [MS-XLS]
// (https://learn.microsoft.com/en-us/openspecs/office_file_formats/ms-xls/).
// The reader walks the "Workbook" stream once: the globals substream gives
// the sheet names (BOUNDSHEET) and the shared strings (SST and its CONTINUE
// records); each worksheet substream gives its cells (LABELSST, LABEL,
// RSTRING, NUMBER, RK, MULRK, BOOLERR, and FORMULA with its cached result,
// a string result following in a STRING record). Sheets render exactly as
// xlsx sheets do (sheetWriter): a "Sheet: name" line, then "label: value"
// rows under the first non-blank row. Dates stay serial numbers, as no
// number formats are read, like xlsx.
//
// Work and memory are linear in the file: one pass over the records, the
// shared strings table counted against the output limit, rows rendered as
// they end and the text stopping at the limit. The server parses xls in
// the parser child process (package sandbox) all the same.

// BIFF8 record types read.
const (
	xlsBOF        = 0x0809
	xlsEOF        = 0x000A
	xlsFilePass   = 0x002F
	xlsBoundSheet = 0x0085
	xlsSST        = 0x00FC
	xlsContinue   = 0x003C
	xlsLabelSST   = 0x00FD
	xlsLabel      = 0x0204
	xlsRString    = 0x00D6
	xlsNumber     = 0x0203
	xlsRK         = 0x027E
	xlsMulRK      = 0x00BD
	xlsFormula    = 0x0006
	xlsString     = 0x0207
	xlsBoolErr    = 0x0205
)

// xlsMaxCols is the column count of a BIFF8 sheet (A to IV); cells past it
// are dropped.
const xlsMaxCols = 256

// MsgXLSOld starts the failure of an Excel 5.0/95 (BIFF5) or older
// workbook, which an external extractor may still read (NeedsExtractor).
const MsgXLSOld = "could not read xls: only Excel 97-2003 (BIFF8) workbooks are supported, not Excel 5.0/95 or older"

func errXLSCorrupt() error { return docError("could not read xls: file is corrupt") }

func errXLSEncrypted() error {
	return docError("xls workbook is encrypted; remove the password protection and upload it again")
}

func parseXLS(data []byte, max int) (string, error) {
	f, err := openCFB(data)
	if err != nil {
		return "", err
	}
	wb, ok, err := f.stream("Workbook")
	if err != nil {
		return "", err
	}
	if !ok {
		switch {
		case f.has("EncryptedPackage"):
			return "", errXLSEncrypted()
		case f.has("Book"):
			return "", docError(MsgXLSOld + "; save the sheet as .xlsx or .csv and upload that")
		}
		return "", docError("could not read xls: the file has no Workbook stream (is it really an Excel workbook?)")
	}
	x := &xlsReader{out: &capped{max: max}, names: map[int]string{}}
	if err := x.walk(wb); err != nil {
		return "", err
	}
	if x.out.Len() == 0 {
		return "", docError("xls workbook contains no cells with values")
	}
	return x.out.String(), nil
}

// xlsRecord is one record: its type, its offset in the stream and its data.
type xlsRecord struct {
	typ  uint16
	pos  int
	data []byte
}

// xlsReader holds what one parse has read so far.
type xlsReader struct {
	out    *capped
	names  map[int]string // sheet names by the stream offset of their BOF
	shared []string
	sheets int
}

// records splits the stream into records; a record running past the end
// of the stream is corruption.
func records(b []byte, yield func(xlsRecord) error) error {
	le := binary.LittleEndian
	for pos := 0; pos+4 <= len(b); {
		typ, n := le.Uint16(b[pos:]), int(le.Uint16(b[pos+2:]))
		if pos+4+n > len(b) {
			return errXLSCorrupt()
		}
		if err := yield(xlsRecord{typ, pos, b[pos+4 : pos+4+n]}); err != nil {
			return err
		}
		pos += 4 + n
	}
	return nil
}

// walk reads the globals substream, then each worksheet as it comes.
// Chart, macro and other substreams, and substreams nested in a sheet
// (embedded charts), are skipped to their EOF.
func (x *xlsReader) walk(wb []byte) error {
	const (
		before = iota
		globals
		between
		inSheet
		skipping
	)
	state, depth := before, 0
	var sh *xlsSheet
	var sst [][]byte // the SST record and its CONTINUE records
	inSST := false
	return records(wb, func(r xlsRecord) error {
		if r.typ == xlsBOF {
			if len(r.data) < 4 {
				return errXLSCorrupt()
			}
			vers, dt := binary.LittleEndian.Uint16(r.data), binary.LittleEndian.Uint16(r.data[2:])
			switch {
			case state == before && vers != 0x0600:
				return docError(MsgXLSOld + "; save the sheet as .xlsx or .csv and upload that")
			case state == before:
				state = globals
			case state == between && dt == 0x0010:
				state, sh = inSheet, x.newSheet(r.pos)
			default:
				if state != skipping {
					depth = 0
				}
				state, depth = skipping, depth+1
			}
			return nil
		}
		if state == before {
			return docError("could not read xls: the Workbook stream does not start with a BOF record")
		}
		switch state {
		case globals:
			switch {
			case r.typ == xlsEOF:
				state = between
				return x.readSST(sst)
			case r.typ == xlsFilePass:
				return errXLSEncrypted()
			case r.typ == xlsBoundSheet && len(r.data) >= 8:
				name := xlsShortString(r.data[6:])
				x.names[int(binary.LittleEndian.Uint32(r.data))] = name
			case r.typ == xlsSST:
				sst, inSST = [][]byte{r.data}, true
				return nil
			case r.typ == xlsContinue && inSST:
				sst = append(sst, r.data)
				return nil
			}
			inSST = false
		case inSheet:
			if r.typ == xlsEOF {
				state = between
				return sh.end()
			}
			return sh.record(r)
		case skipping:
			if r.typ == xlsEOF {
				if depth--; depth == 0 {
					if sh != nil && !sh.done {
						state = inSheet
					} else {
						state = between
					}
				}
			}
		}
		return nil
	})
}

// newSheet starts rendering the worksheet whose BOF is at pos.
func (x *xlsReader) newSheet(pos int) *xlsSheet {
	x.sheets++
	name, ok := x.names[pos]
	if !ok {
		name = "Sheet" + strconv.Itoa(x.sheets)
	}
	return &xlsSheet{x: x, w: sheetWriter{out: x.out, name: name}, row: -1}
}

// formatXLSNumber renders a number the way a spreadsheet shows it in general
// format: integers without a decimal point, others in the shortest form
// that reads back the same value.
func formatXLSNumber(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "#NUM!"
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.FormatInt(int64(v), 10)
	case math.Abs(v) >= 1e-4 && math.Abs(v) < 1e15:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'G', -1, 64)
}

// decodeRK decodes an RK number: a 30-bit integer or the high 30 bits of a
// double, either possibly divided by 100.
func decodeRK(rk uint32) float64 {
	var v float64
	if rk&2 != 0 {
		v = float64(int32(rk) >> 2)
	} else {
		v = math.Float64frombits(uint64(rk&0xFFFFFFFC) << 32)
	}
	if rk&1 != 0 {
		v /= 100
	}
	return v
}

// xlsError names a BOOLERR or FORMULA error code.
func xlsError(code byte) string {
	switch code {
	case 0x00:
		return "#NULL!"
	case 0x07:
		return "#DIV/0!"
	case 0x0F:
		return "#VALUE!"
	case 0x17:
		return "#REF!"
	case 0x1D:
		return "#NAME?"
	case 0x24:
		return "#NUM!"
	case 0x2A:
		return "#N/A"
	}
	return "#ERROR!"
}

// xlsShortString reads a ShortXLUnicodeString (a sheet name): a one-byte
// count, an option byte, then one- or two-byte characters.
func xlsShortString(d []byte) string {
	if len(d) < 2 {
		return ""
	}
	n, high, d := int(d[0]), d[1]&0x01 != 0, d[2:]
	u := make([]uint16, 0, n)
	for k := 0; k < n; k++ {
		switch {
		case high && len(d) >= 2*k+2:
			u = append(u, binary.LittleEndian.Uint16(d[2*k:]))
		case !high && len(d) > k:
			u = append(u, uint16(d[k]))
		}
	}
	return string(utf16.Decode(u))
}
