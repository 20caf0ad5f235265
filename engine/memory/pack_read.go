package memory

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash"
	"io"
	"math"

	"github.com/hearth-dev/hearth/engine"
	"github.com/klauspost/compress/zstd"
)

// packReader reads and hashes records; the end record's sum is checked
// when it is read.
type packReader struct {
	zr   *zstd.Decoder
	r    *bufio.Reader
	sum  hash.Hash
	kind byte
	body []byte
	back bool
	done bool
}

func newPackReader(r io.Reader) (*packReader, error) {
	zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(32<<20), zstd.WithDecoderLowmem(true))
	if err != nil {
		return nil, err
	}
	pr := recordReader(zr)
	pr.zr = zr
	return pr, nil
}

// recordReader reads records from the uncompressed stream r.
func recordReader(r io.Reader) *packReader {
	return &packReader{r: bufio.NewReaderSize(r, 64<<10), sum: sha256.New()}
}

func (r *packReader) close() {
	if r.zr != nil {
		r.zr.Close()
	}
}

// readErr turns a read error into a refusal, keeping transport errors
// (a body over its limit, a dropped connection) as they are.
func readErr(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return packError("the pack is truncated: it ends before its end record")
	}
	if errors.Is(err, zstd.ErrMagicMismatch) || errors.Is(err, zstd.ErrReservedBlockType) || errors.Is(err, zstd.ErrBlockTooSmall) ||
		errors.Is(err, zstd.ErrCRCMismatch) || errors.Is(err, zstd.ErrWindowSizeExceeded) || errors.Is(err, zstd.ErrUnknownDictionary) ||
		errors.Is(err, zstd.ErrFrameSizeMismatch) || errors.Is(err, zstd.ErrCompressedSizeTooBig) || errors.Is(err, zstd.ErrWindowSizeTooSmall) {
		return packError("the pack is not a valid zstd stream: %v", err)
	}
	return err
}

// next returns the next record. The payload is valid until the next call.
func (r *packReader) next() (byte, []byte, error) {
	if r.back {
		r.back = false
		return r.kind, r.body, nil
	}
	if r.done {
		return 0, nil, packError("the pack has records after its end record")
	}
	kind, err := r.r.ReadByte()
	if err != nil {
		return 0, nil, readErr(err)
	}
	n, err := binary.ReadUvarint(r.r)
	if err != nil {
		return 0, nil, readErr(err)
	}
	if n > maxPackRecord {
		return 0, nil, packError("a record of %d bytes is larger than the limit of %d: the pack is corrupt", n, maxPackRecord)
	}
	if uint64(cap(r.body)) < n {
		r.body = make([]byte, n)
	}
	r.body = r.body[:n]
	if _, err := io.ReadFull(r.r, r.body); err != nil {
		return 0, nil, readErr(err)
	}
	r.kind = kind
	if kind == recEnd {
		if !bytes.Equal(r.body, r.sum.Sum(nil)) {
			return 0, nil, packError("checksum mismatch: the pack is corrupt or was altered")
		}
		r.done = true
		if _, err := r.r.ReadByte(); !errors.Is(err, io.EOF) {
			if err != nil {
				return 0, nil, readErr(err)
			}
			return 0, nil, packError("the pack has data after its end record")
		}
		return kind, r.body, nil
	}
	var hdr [binary.MaxVarintLen64 + 1]byte
	hdr[0] = kind
	m := binary.PutUvarint(hdr[1:], n)
	r.sum.Write(hdr[:1+m])
	r.sum.Write(r.body)
	return kind, r.body, nil
}

// unread makes next return the last record again.
func (r *packReader) unread() { r.back = true }

// header reads and checks the header record.
func (r *packReader) header() (*PackHeader, error) {
	kind, body, err := r.next()
	if err != nil {
		return nil, err
	}
	var h PackHeader
	if kind != recHeader || json.Unmarshal(body, &h) != nil || h.Format != PackFormat {
		return nil, packError("not a Hearth memory pack (no %q header)", PackFormat)
	}
	if h.Version > PackVersion || h.Version < 1 {
		return nil, engine.FieldError("pack.version", "pack version %d is not supported: this server reads versions 1 to %d; upgrade Hearth to import it", h.Version, PackVersion)
	}
	if h.Dimension < 0 || h.Documents < 0 {
		return nil, packError("the header's dimension and documents must not be negative")
	}
	return &h, nil
}

// decodeChunk splits a C record into its chunk and vector.
func decodeChunk(body []byte, dim int) (*packChunk, []float32, error) {
	n, k := binary.Uvarint(body)
	if k <= 0 || n > uint64(len(body)-k) {
		return nil, nil, packError("a chunk record is malformed")
	}
	var c packChunk
	if err := json.Unmarshal(body[k:k+int(n)], &c); err != nil {
		return nil, nil, packError("a chunk record is malformed: %v", err)
	}
	rest := body[k+int(n):]
	if len(rest) != 4*dim {
		return nil, nil, packError("chunk %q has a vector of %d bytes; the header's dimension %d needs %d", c.ID, len(rest), dim, 4*dim)
	}
	if dim == 0 {
		return &c, nil, nil
	}
	vec := make([]float32, dim)
	for i := range vec {
		vec[i] = math.Float32frombits(binary.LittleEndian.Uint32(rest[4*i:]))
	}
	return &c, vec, nil
}

// fileReader reads the F records that follow a document record as one
// stream, stopping at the first record of another kind.
type fileReader struct {
	r    *packReader
	cur  []byte
	done bool
	err  error
}

func (f *fileReader) Read(p []byte) (int, error) {
	for len(f.cur) == 0 {
		if f.done {
			return 0, io.EOF
		}
		kind, body, err := f.r.next()
		if err != nil {
			f.err = err
			return 0, err
		}
		if kind != recFile {
			f.r.unread()
			f.done = true
			return 0, io.EOF
		}
		f.cur = body
	}
	n := copy(p, f.cur)
	f.cur = f.cur[n:]
	return n, nil
}
