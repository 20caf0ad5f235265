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
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/chunk"
	"github.com/klauspost/compress/zstd"
)

// A memory pack (README "Memory packs") is one zstd stream of records.
// Each record is a kind byte, its payload length as an unsigned varint,
// then the payload:
//
//	H  header (JSON PackHeader), always the first record in every version
//	D  a document (JSON packDoc), followed by its F and C records
//	F  a piece of the document's original file (at most 1 MiB)
//	C  a chunk: varint length of its JSON packChunk, the JSON, then its
//	   vector as dimension little-endian float32s (none when keyword-only)
//	Z  the end: the SHA-256 of every byte of the records before it
//
// Nothing may follow the end record.
const (
	// PackFormat names the format in the header.
	PackFormat = "hearth-memory-pack"
	// PackVersion is the version this server writes and the newest it reads.
	PackVersion = 1
	// PackContentType is the media type of a pack.
	PackContentType = "application/vnd.hearth.memory-pack"

	recHeader = 'H'
	recDoc    = 'D'
	recFile   = 'F'
	recChunk  = 'C'
	recEnd    = 'Z'

	// maxPackRecord bounds one record's payload.
	maxPackRecord = 8 << 20
	packPiece     = 1 << 20
)

// PackHeader is the first record of a pack.
type PackHeader struct {
	Format    string     `json:"format"`
	Version   int        `json:"version"`
	CreatedAt time.Time  `json:"created_at"`
	Memory    PackMemory `json:"memory"`
	// Dimension is the length of every vector (0 for keyword-only memories).
	Dimension int `json:"dimension"`
	// Documents is the number of document records.
	Documents int `json:"documents"`
}

// PackMemory is the memory's settings in a pack.
type PackMemory struct {
	Name           string             `json:"name"`
	Description    string             `json:"description"`
	EmbeddingModel string             `json:"embedding_model"`
	ChunkSize      int                `json:"chunk_size"`
	ChunkOverlap   int                `json:"chunk_overlap"`
	TopK           int                `json:"top_k"`
	Rerank         *engine.RerankSpec `json:"rerank,omitempty"`
	Chunking       *chunk.Settings    `json:"chunking,omitempty"`
}

// packDoc is a document record: the live version of a document.
type packDoc struct {
	Name        string            `json:"name"`
	Version     string            `json:"version"`
	ContentType string            `json:"content_type"`
	Size        int64             `json:"size"`
	Meta        map[string]string `json:"meta,omitempty"`
	Chunks      int               `json:"chunks"`
	Chunking    *chunk.Settings   `json:"chunking,omitempty"`
	UploadedAt  time.Time         `json:"uploaded_at"`
	CreatedAt   time.Time         `json:"created_at"`
	// File says whether F records with the original bytes follow.
	File bool `json:"file"`
}

// packChunk is a chunk record without its vector.
type packChunk struct {
	ID          string `json:"id"`
	Text        string `json:"text"`
	Heading     string `json:"heading,omitempty"`
	Parent      string `json:"parent,omitempty"`
	ParentChunk string `json:"parent_chunk,omitempty"`
}

// packError is a refusal of a malformed pack, naming the field "pack".
func packError(format string, args ...any) error {
	return engine.FieldError("pack", format, args...)
}

// packWriter writes records through zstd and hashes them.
type packWriter struct {
	zw  *zstd.Encoder
	sum hash.Hash
	buf []byte
}

func newPackWriter(w io.Writer) (*packWriter, error) {
	zw, err := zstd.NewWriter(w, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault))
	if err != nil {
		return nil, err
	}
	return &packWriter{zw: zw, sum: sha256.New()}, nil
}

func (w *packWriter) record(kind byte, payload []byte) error {
	w.buf = append(w.buf[:0], kind)
	w.buf = binary.AppendUvarint(w.buf, uint64(len(payload)))
	w.sum.Write(w.buf)
	w.sum.Write(payload)
	if _, err := w.zw.Write(w.buf); err != nil {
		return err
	}
	_, err := w.zw.Write(payload)
	return err
}

func (w *packWriter) json(kind byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return w.record(kind, b)
}

func (w *packWriter) chunk(c *packChunk, vec []float32) error {
	j, err := json.Marshal(c)
	if err != nil {
		return err
	}
	b := binary.AppendUvarint(make([]byte, 0, len(j)+4*len(vec)+4), uint64(len(j)))
	b = append(b, j...)
	for _, x := range vec {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return w.record(recChunk, b)
}

// file writes r as F records.
func (w *packWriter) file(r io.Reader) error {
	buf := make([]byte, packPiece)
	for {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			if err := w.record(recFile, buf[:n]); err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// end writes the end record and flushes the stream.
func (w *packWriter) end() error {
	sum := w.sum.Sum(nil)
	w.buf = append(w.buf[:0], recEnd)
	w.buf = binary.AppendUvarint(w.buf, uint64(len(sum)))
	w.buf = append(w.buf, sum...)
	if _, err := w.zw.Write(w.buf); err != nil {
		return err
	}
	return w.zw.Close()
}

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
