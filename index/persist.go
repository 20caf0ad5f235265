package index

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// Key schema (all under idx/<memoryID>/, see doc.go):
//
//	idx/<m>/seq                  u64: sequence number of the last committed change
//	idx/<m>/v/<chunkID>          u64 seq of the write, then dim x f32 (unit vector)
//	idx/<m>/manifest             JSON manifest of the current snapshot
//	idx/<m>/snap/<gen>/<part>    snapshot bytes, gen %016x, part %08x, < 1 MB each
//	idx/<m>/drop                 present while a DropMemory is being carried out
//	idx/<m>/kwseq                u64: sequence number of the last keyword index change
func memPrefix(m string) string     { return "idx/" + m + "/" }
func kwSeqKey(m string) string      { return memPrefix(m) + "kwseq" }
func seqKey(m string) string        { return memPrefix(m) + "seq" }
func vecPrefix(m string) string     { return memPrefix(m) + "v/" }
func vecKey(m, chunk string) string { return vecPrefix(m) + chunk }
func manifestKey(m string) string   { return memPrefix(m) + "manifest" }
func snapPrefix(m string) string    { return memPrefix(m) + "snap/" }
func dropKey(m string) string       { return memPrefix(m) + "drop" }
func genPrefix(m string, g uint64) string {
	return fmt.Sprintf("%s%016x/", snapPrefix(m), g)
}
func partKey(m string, g uint64, i int) string { return fmt.Sprintf("%s%08x", genPrefix(m, g), i) }

var memoryIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// checkMemoryID rejects ids that would break the key schema or the
// directory layout (the id is also the name of the Bleve directory).
func checkMemoryID(id string) error {
	if !memoryIDPattern.MatchString(id) || strings.Contains(id, "..") {
		return engine.Errorf(engine.CodeBadRequest, "invalid memory id %q", id)
	}
	return nil
}

const snapshotFormat = 1

// manifest is the commit record of a snapshot: it is written in the same
// transaction as the last part, so a snapshot without a manifest (a crash
// half-way) is never read, and the previous one stays valid.
type manifest struct {
	Format  int       `json:"format"`
	Gen     uint64    `json:"gen"`
	Seq     uint64    `json:"seq"`
	Parts   int       `json:"parts"`
	Bytes   int64     `json:"bytes"`
	CRC     uint32    `json:"crc32c"`
	Nodes   int       `json:"nodes"`
	Live    int       `json:"live"`
	Dim     int       `json:"dim"`
	Written time.Time `json:"written"`
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func encodeVec(seq uint64, v []float32) []byte {
	b := make([]byte, 8, 8+4*len(v))
	binary.LittleEndian.PutUint64(b, seq)
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func decodeVec(b []byte) (uint64, []float32, error) {
	if len(b) < 12 || (len(b)-8)%4 != 0 {
		return 0, nil, errors.New("index: malformed vector record")
	}
	v := make([]float32, (len(b)-8)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[8+4*i:]))
	}
	return binary.LittleEndian.Uint64(b), v, nil
}

func encodeU64(x uint64) []byte { return binary.LittleEndian.AppendUint64(nil, x) }

func getU64(tx engine.Tx, key string) (uint64, error) {
	b, err := tx.GetRaw(key)
	if errors.Is(err, engine.ErrNotFound) || engine.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return decodeU64(key, b)
}

// decodeU64 decodes the counter stored under key.
func decodeU64(key string, b []byte) (uint64, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("index: malformed counter %s", key)
	}
	return binary.LittleEndian.Uint64(b), nil
}

// partWriter streams a snapshot into parts and commits them a few at a time;
// commit writes the rest together with the manifest.
type partWriter struct {
	ctx      context.Context
	store    engine.Store
	mem      string
	gen      uint64
	partSize int
	perTxn   int
	buf      []byte
	pending  [][]byte
	parts    int
	size     int64
	crc      hash.Hash32
}

func (w *partWriter) Write(p []byte) (int, error) {
	w.crc.Write(p)
	w.size += int64(len(p))
	n := len(p)
	for len(p) > 0 {
		take := min(w.partSize-len(w.buf), len(p))
		w.buf = append(w.buf, p[:take]...)
		p = p[take:]
		if len(w.buf) == w.partSize {
			w.pending = append(w.pending, w.buf)
			w.buf = make([]byte, 0, w.partSize)
			if len(w.pending) >= w.perTxn {
				if err := w.flush(nil); err != nil {
					return 0, err
				}
			}
		}
	}
	return n, nil
}

func (w *partWriter) flush(man *manifest) error {
	first := w.parts
	err := w.store.Update(w.ctx, func(tx engine.Tx) error {
		for i, b := range w.pending {
			if err := tx.PutRaw(partKey(w.mem, w.gen, first+i), b); err != nil {
				return err
			}
		}
		if man != nil {
			return tx.Put(manifestKey(w.mem), man)
		}
		return nil
	})
	if err != nil {
		return err
	}
	w.parts += len(w.pending)
	w.pending = w.pending[:0]
	return nil
}

// commit writes the remaining bytes and the manifest in one transaction.
func (w *partWriter) commit(man manifest) (manifest, error) {
	if len(w.buf) > 0 {
		w.pending = append(w.pending, w.buf)
		w.buf = nil
	}
	man.Format, man.Gen = snapshotFormat, w.gen
	man.Parts = w.parts + len(w.pending)
	man.Bytes, man.CRC = w.size, w.crc.Sum32()
	return man, w.flush(&man)
}

// partReader reads the parts of a snapshot in order inside one View and
// checks their total length and checksum against the manifest.
type partReader struct {
	tx   engine.Tx
	mem  string
	man  manifest
	next int
	cur  []byte
	size int64
	crc  hash.Hash32
}

func (r *partReader) Read(p []byte) (int, error) {
	for len(r.cur) == 0 {
		if r.next == r.man.Parts {
			return 0, io.EOF
		}
		b, err := r.tx.GetRaw(partKey(r.mem, r.man.Gen, r.next))
		if err != nil {
			return 0, fmt.Errorf("index: snapshot part %d: %w", r.next, err)
		}
		r.next++
		r.cur = b
		r.crc.Write(b)
		r.size += int64(len(b))
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

// verify drains what the decoder did not read and compares size and checksum.
func (r *partReader) verify() error {
	if _, err := io.Copy(io.Discard, r); err != nil {
		return err
	}
	if r.size != r.man.Bytes || r.crc.Sum32() != r.man.CRC {
		return errors.New("index: snapshot checksum mismatch")
	}
	return nil
}

// deleteKeys removes every key with the prefix (except those keep accepts),
// in transactions of bounded size so huge memories fit Badger's limits.
func deleteKeys(ctx context.Context, s engine.Store, prefix string, keep func(key string) bool) error {
	const batch = 2000
	after := ""
	for {
		var keys []string
		err := s.View(ctx, func(tx engine.Tx) error {
			return tx.Scan(prefix, after, func(k string, _ []byte) error {
				after = k
				if keep == nil || !keep(k) {
					keys = append(keys, k)
				}
				if len(keys) == batch {
					return engine.ErrStopScan
				}
				return nil
			})
		})
		if err != nil {
			return err
		}
		if len(keys) > 0 {
			if err := s.Update(ctx, func(tx engine.Tx) error {
				for _, k := range keys {
					if err := tx.Delete(k); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				return err
			}
		}
		if len(keys) < batch {
			return nil
		}
	}
}

// parseGenPart extracts the generation and part number of a snapshot key.
func parseGenPart(mem, key string) (gen uint64, part int, ok bool) {
	rest := strings.TrimPrefix(key, snapPrefix(mem))
	g, p, found := strings.Cut(rest, "/")
	if !found {
		return 0, 0, false
	}
	gv, err1 := strconv.ParseUint(g, 16, 64)
	pv, err2 := strconv.ParseUint(p, 16, 32)
	return gv, int(pv), err1 == nil && err2 == nil
}
