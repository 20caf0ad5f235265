package servertest

import (
	"errors"
	"io"
	"os"
	"syscall"
)

// lseek(2) whence values on Linux.
const (
	seekData = 3
	seekHole = 4
)

// dataRanges lists the [start, end) ranges of f that hold data, skipping
// the holes of a sparse file (Badger preallocates its logs sparsely); a
// file system without SEEK_DATA gives one range over the whole file.
func dataRanges(f *os.File, size int64) [][2]int64 {
	var out [][2]int64
	for off := int64(0); off < size; {
		start, err := f.Seek(off, seekData)
		if errors.Is(err, syscall.ENXIO) {
			break
		}
		if err != nil {
			return [][2]int64{{0, size}}
		}
		end, err := f.Seek(start, seekHole)
		if err != nil {
			return [][2]int64{{0, size}}
		}
		out = append(out, [2]int64{start, min(end, size)})
		off = end
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return [][2]int64{{0, size}}
	}
	return out
}
