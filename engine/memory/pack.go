package memory

import (
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

// A memory pack (docs/memories-and-retrieval.md#memory-packs) is one zstd stream of records.
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
