package parse

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode/utf16"
)

// A Compound File Binary (OLE2) container, the file format of Excel 97-2003
// workbooks, is a small FAT file system inside one file
// (https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-cfb/).
// cfbFile reads the directory and whole streams from it. Every sector
// number read from the file is checked against the file's size, and every
// chain is followed at most as many steps as its stream needs, so a chain
// with a cycle or a stream claiming more bytes than the file holds fails
// instead of looping or allocating: memory stays a small multiple of the
// file's size.

// cfbMagic starts every compound file.
var cfbMagic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

// Special sector numbers.
const (
	cfbEndOfChain = 0xFFFFFFFE
	cfbFree       = 0xFFFFFFFF
	cfbMaxDir     = 1 << 16 // directory entries read, far above any workbook's
)

type cfbFile struct {
	data     []byte
	secSize  int
	nsec     uint32 // sectors in the file after the header
	fat      []uint32
	miniFAT  []uint32
	ministrm []byte
	cutoff   uint64
	entries  []cfbEntry
}

type cfbEntry struct {
	name  string
	typ   byte // 1 storage, 2 stream, 5 root
	start uint32
	size  uint64
}

func errCFB() error {
	return docError("could not read xls: file is corrupt (bad compound file structure)")
}

// isCFB reports whether data starts like a compound file.
func isCFB(data []byte) bool { return bytes.HasPrefix(data, cfbMagic) }

func openCFB(data []byte) (*cfbFile, error) {
	if len(data) < 512 || !isCFB(data) {
		return nil, docError("could not read xls: file is not an Excel 97-2003 workbook (no compound file header)")
	}
	le := binary.LittleEndian
	shift := le.Uint16(data[0x1E:])
	if shift != 9 && shift != 12 || le.Uint16(data[0x20:]) != 6 {
		return nil, errCFB()
	}
	f := &cfbFile{data: data, secSize: 1 << shift, cutoff: uint64(le.Uint32(data[0x38:]))}
	f.nsec = uint32((len(data) - f.secSize + f.secSize - 1) / f.secSize)
	if len(data) <= f.secSize {
		f.nsec = 0
	}
	if err := f.readFAT(le.Uint32(data[0x2C:]), le.Uint32(data[0x44:]), le.Uint32(data[0x48:])); err != nil {
		return nil, err
	}
	dir, err := f.chain(f.fat, le.Uint32(data[0x30:]), -1, f.sector)
	if err != nil {
		return nil, err
	}
	for i := 0; i+128 <= len(dir) && len(f.entries) < cfbMaxDir; i += 128 {
		e := dir[i : i+128]
		n := int(le.Uint16(e[64:]))
		if n > 64 || n%2 != 0 {
			n = 0
		}
		u := make([]uint16, 0, 32)
		for j := 0; j+1 < n; j += 2 {
			if c := le.Uint16(e[j:]); c != 0 {
				u = append(u, c)
			}
		}
		size := le.Uint64(e[120:])
		if le.Uint16(data[0x1A:]) == 3 {
			size &= 0xFFFFFFFF // version 3 files may leave junk in the high half
		}
		f.entries = append(f.entries, cfbEntry{name: string(utf16.Decode(u)), typ: e[66], start: le.Uint32(e[116:]), size: size})
	}
	if len(f.entries) == 0 || f.entries[0].typ != 5 {
		return nil, errCFB()
	}
	root := f.entries[0]
	if root.size > 0 {
		if f.ministrm, err = f.chain(f.fat, root.start, int64(root.size), f.sector); err != nil {
			return nil, err
		}
		if f.miniFAT, err = f.table(le.Uint32(data[0x3C:]), le.Uint32(data[0x40:])); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// sector returns sector n, or nil when it lies outside the file.
func (f *cfbFile) sector(n uint32) []byte {
	if n >= f.nsec {
		return nil
	}
	off := (int(n) + 1) * f.secSize
	return f.data[off:min(off+f.secSize, len(f.data))]
}

// miniSector returns mini sector n (64 bytes) of the mini stream.
func (f *cfbFile) miniSector(n uint32) []byte {
	off := uint64(n) * 64
	if off >= uint64(len(f.ministrm)) {
		return nil
	}
	return f.ministrm[off:min(off+64, uint64(len(f.ministrm)))]
}

// readFAT collects the FAT sectors listed by the header's 109 DIFAT
// entries and the DIFAT chain, then the FAT itself.
func (f *cfbFile) readFAT(nfat, difat, ndifat uint32) error {
	if nfat > f.nsec || ndifat > f.nsec {
		return errCFB()
	}
	le := binary.LittleEndian
	var list []uint32
	for i := 0; i < 109 && uint32(len(list)) < nfat; i++ {
		list = append(list, le.Uint32(f.data[0x4C+4*i:]))
	}
	per := f.secSize/4 - 1
	for steps := uint32(0); uint32(len(list)) < nfat; steps++ {
		s := f.sector(difat)
		if s == nil || steps >= ndifat {
			return errCFB()
		}
		for i := 0; i < per && uint32(len(list)) < nfat; i++ {
			list = append(list, le.Uint32(s[4*i:]))
		}
		difat = le.Uint32(s[4*per:])
	}
	f.fat = make([]uint32, 0, len(list)*f.secSize/4)
	for _, n := range list {
		s := f.sector(n)
		if s == nil || len(s) < f.secSize {
			return errCFB()
		}
		for i := 0; i < f.secSize; i += 4 {
			f.fat = append(f.fat, le.Uint32(s[i:]))
		}
	}
	return nil
}

// table reads a table of sector numbers (the mini FAT) of n sectors.
func (f *cfbFile) table(start, n uint32) ([]uint32, error) {
	if n > f.nsec {
		return nil, errCFB()
	}
	b, err := f.chain(f.fat, start, int64(n)*int64(f.secSize), f.sector)
	if err != nil {
		return nil, err
	}
	t := make([]uint32, len(b)/4)
	for i := range t {
		t[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return t, nil
}

// chain reads size bytes (all of the chain when size < 0) following a
// sector chain through fat. A chain that comes back to a sector it passed
// (a cycle) or leaves the file is an error.
func (f *cfbFile) chain(fat []uint32, start uint32, size int64, at func(uint32) []byte) ([]byte, error) {
	if size > int64(len(f.data)) {
		return nil, errCFB()
	}
	var out []byte
	if size > 0 {
		out = make([]byte, 0, size)
	}
	seen := make([]uint64, len(fat)/64+1)
	for n := start; n != cfbEndOfChain && (size < 0 || int64(len(out)) < size); {
		s := at(n)
		if s == nil || int(n) >= len(fat) || seen[n/64]&(1<<(n%64)) != 0 {
			return nil, errCFB()
		}
		seen[n/64] |= 1 << (n % 64)
		out = append(out, s...)
		if size < 0 && len(out) > len(f.data) {
			return nil, errCFB()
		}
		n = fat[n]
	}
	if size >= 0 {
		if int64(len(out)) < size {
			return nil, errCFB()
		}
		out = out[:size]
	}
	return out, nil
}

// stream returns the whole stream with this name (case-insensitive), and
// whether the file has one.
func (f *cfbFile) stream(name string) ([]byte, bool, error) {
	for _, e := range f.entries[1:] {
		if e.typ != 2 || !strings.EqualFold(e.name, name) {
			continue
		}
		if e.size < f.cutoff {
			b, err := f.chain(f.miniFAT, e.start, int64(e.size), f.miniSector)
			return b, true, err
		}
		b, err := f.chain(f.fat, e.start, int64(e.size), f.sector)
		return b, true, err
	}
	return nil, false, nil
}

// has reports whether the file has a stream with this name.
func (f *cfbFile) has(name string) bool {
	for _, e := range f.entries[1:] {
		if e.typ == 2 && strings.EqualFold(e.name, name) {
			return true
		}
	}
	return false
}
