package parse

import (
	"bytes"
	"encoding/binary"
	"math"
	"unicode/utf16"
)

// Builders of Excel 97-2003 files for tests: BIFF8 records ([MS-XLS]) in
// a version 3 compound file ([MS-CFB]) with 512-byte sectors. The real
// files LibreOffice made are in testdata/docs/office; these cover the
// records LibreOffice does not write (STRING after a string formula,
// strings split across CONTINUE records with a change of width, FILEPASS)
// and broken structures.

func le16(v int) []byte    { return binary.LittleEndian.AppendUint16(nil, uint16(v)) }
func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// rec is one BIFF record.
func rec(typ int, data ...[]byte) []byte {
	d := cat(data...)
	return cat(le16(typ), le16(len(d)), d)
}

// bof is a BIFF8 BOF record of substream type dt (5 globals, 0x10 sheet,
// 0x20 chart).
func bof(dt int) []byte { return rec(xlsBOF, le16(0x0600), le16(dt), make([]byte, 12)) }

func eof() []byte { return rec(xlsEOF) }

// xlStr is an XLUnicodeString: 16-bit count, option byte, characters
// (compressed when all fit in one byte).
func xlStr(s string) []byte {
	u := utf16.Encode([]rune(s))
	wide := false
	for _, c := range u {
		wide = wide || c > 0xFF
	}
	return cat(le16(len(u)), strChars(u, wide))
}

// strChars is an option byte and the characters.
func strChars(u []uint16, wide bool) []byte {
	if !wide {
		b := []byte{0}
		for _, c := range u {
			b = append(b, byte(c))
		}
		return b
	}
	b := []byte{1}
	for _, c := range u {
		b = binary.LittleEndian.AppendUint16(b, c)
	}
	return b
}

func cellHead(row, col int) []byte { return cat(le16(row), le16(col), le16(15)) }

func f64(v float64) []byte { return binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)) }

// boundSheet names the worksheet whose BOF is at offset pos.
func boundSheet(pos int, name string) []byte {
	return rec(xlsBoundSheet, le32(uint32(pos)), []byte{0, 0, byte(len(name)), 0}, []byte(name))
}

// workbookStream joins the globals records (without BOF, BOUNDSHEET and
// EOF) and worksheets (their records without BOF and EOF), computing the
// BOUNDSHEET offsets.
func workbookStream(globals []byte, sheets map[string][]byte, order ...string) []byte {
	bsLen := 0
	for _, n := range order {
		bsLen += len(boundSheet(0, n))
	}
	pos := len(bof(5)) + bsLen + len(globals) + len(eof())
	var bs, body []byte
	for _, n := range order {
		bs = append(bs, boundSheet(pos, n)...)
		s := cat(bof(0x10), sheets[n], eof())
		body = append(body, s...)
		pos += len(s)
	}
	return cat(bof(5), bs, globals, eof(), body)
}

// cfbOf wraps streams in a compound file, each stream in regular sectors
// (streams shorter than the 4096-byte cutoff are padded with empty
// records, which the reader passes over). fat, when set, rewrites the
// FAT before it is written.
func cfbOf(streams map[string][]byte, fat func([]uint32)) []byte {
	const sec = 512
	names := []string{}
	for n := range streams {
		names = append(names, n)
	}
	table := make([]uint32, sec/4)
	for i := range table {
		table[i] = cfbFree
	}
	table[0], table[1] = 0xFFFFFFFD, cfbEndOfChain // the FAT, the directory
	dir := make([]byte, sec)
	entry := func(i int, name string, typ byte, start uint32, size int) {
		e := dir[i*128:]
		u := utf16.Encode([]rune(name))
		for j, c := range u {
			binary.LittleEndian.PutUint16(e[2*j:], c)
		}
		binary.LittleEndian.PutUint16(e[64:], uint16(2*len(u)+2))
		e[66] = typ
		binary.LittleEndian.PutUint32(e[68:], cfbFree)
		binary.LittleEndian.PutUint32(e[72:], cfbFree)
		binary.LittleEndian.PutUint32(e[76:], cfbFree)
		binary.LittleEndian.PutUint32(e[116:], start)
		binary.LittleEndian.PutUint32(e[120:], uint32(size))
	}
	entry(0, "Root Entry", 5, cfbEndOfChain, 0)
	var body []byte
	next := uint32(2)
	for i, n := range names {
		data := streams[n]
		for len(data) < 4096 {
			data = append(data, 0, 0, 0, 0)
		}
		entry(i+1, n, 2, next, len(data))
		k := uint32((len(data) + sec - 1) / sec)
		for j := uint32(0); j < k; j++ {
			table[next+j] = next + j + 1
		}
		table[next+k-1] = cfbEndOfChain
		next += k
		padded := make([]byte, int(k)*sec)
		copy(padded, data)
		body = append(body, padded...)
	}
	if fat != nil {
		fat(table)
	}
	h := make([]byte, 512)
	copy(h, cfbMagic)
	copy(h[0x18:], cat(le16(0x3E), le16(3), le16(0xFFFE), le16(9), le16(6)))
	copy(h[0x2C:], cat(le32(1), le32(1), le32(0), le32(4096), le32(cfbEndOfChain), le32(0), le32(cfbEndOfChain), le32(0)))
	for i := 0; i < 109; i++ {
		copy(h[0x4C+4*i:], le32(cfbFree))
	}
	copy(h[0x4C:], le32(0))
	fatSec := make([]byte, 0, sec)
	for _, v := range table {
		fatSec = binary.LittleEndian.AppendUint32(fatSec, v)
	}
	return cat(h, fatSec, dir, body)
}

// xlsOf is a workbook file of one stream named Workbook.
func xlsOf(stream []byte) []byte { return cfbOf(map[string][]byte{"Workbook": stream}, nil) }
