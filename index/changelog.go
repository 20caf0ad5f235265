package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// Change log keys (cluster mode only, see doc.go):
//
//	idx/<m>/log/<seq %016x>   one committed change: encoded by change.encode
func logPrefix(m string) string          { return memPrefix(m) + "log/" }
func logKey(m string, seq uint64) string { return fmt.Sprintf("%s%016x", logPrefix(m), seq) }

// parseLogKey returns the sequence number of a change log key.
func parseLogKey(m, key string) (uint64, bool) {
	s, err := strconv.ParseUint(strings.TrimPrefix(key, logPrefix(m)), 16, 64)
	return s, err == nil
}

// change is one committed change of a memory, as the change log holds it:
// everything another node needs to apply it to its graph and its Bleve
// index without reading anything else.
type change struct {
	seq    uint64
	vecPut []string
	vecs   [][]float32 // unit vectors, one per vecPut id
	vecDel []string
	kwPut  []engine.IndexedChunk // ID and Text only
	kwDel  []string
}

const changeFormat = 1

func (c *change) size() int {
	n := 16
	for i, id := range c.vecPut {
		n += len(id) + 4*len(c.vecs[i]) + 8
	}
	for _, id := range c.vecDel {
		n += len(id) + 4
	}
	for _, k := range c.kwPut {
		n += len(k.ID) + len(k.Text) + 8
	}
	for _, id := range c.kwDel {
		n += len(id) + 4
	}
	return n
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendStrs(b []byte, ss []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = appendStr(b, s)
	}
	return b
}

// encode writes the format byte, then the vector puts (id, dimension,
// float32 LE components), vector deletes, keyword puts (id, text) and
// keyword deletes, each list led by its length; lengths are uvarints.
func (c *change) encode() []byte {
	b := make([]byte, 0, c.size())
	b = append(b, changeFormat)
	b = binary.AppendUvarint(b, uint64(len(c.vecPut)))
	for i, id := range c.vecPut {
		b = appendStr(b, id)
		b = binary.AppendUvarint(b, uint64(len(c.vecs[i])))
		for _, x := range c.vecs[i] {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
	}
	b = appendStrs(b, c.vecDel)
	b = binary.AppendUvarint(b, uint64(len(c.kwPut)))
	for _, k := range c.kwPut {
		b = appendStr(b, k.ID)
		b = appendStr(b, k.Text)
	}
	return appendStrs(b, c.kwDel)
}

var errBadChange = errors.New("index: malformed change log entry")

type changeReader struct {
	b   []byte
	err error
}

func (r *changeReader) uvarint() int {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > uint64(len(r.b)) {
		r.err = errBadChange
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

func (r *changeReader) str() string {
	n := r.uvarint()
	if r.err != nil || n > len(r.b) {
		r.err = errBadChange
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *changeReader) strs() []string {
	n := r.uvarint()
	var out []string
	for i := 0; i < n && r.err == nil; i++ {
		out = append(out, r.str())
	}
	return out
}

// decodeChange reads an entry written by encode.
func decodeChange(seq uint64, b []byte) (*change, error) {
	if len(b) == 0 || b[0] != changeFormat {
		return nil, errBadChange
	}
	r := &changeReader{b: b[1:]}
	c := &change{seq: seq}
	for i, n := 0, r.uvarint(); i < n && r.err == nil; i++ {
		id := r.str()
		dim := r.uvarint()
		if r.err != nil || 4*dim > len(r.b) {
			return nil, errBadChange
		}
		v := make([]float32, dim)
		for j := range v {
			v[j] = math.Float32frombits(binary.LittleEndian.Uint32(r.b[4*j:]))
		}
		r.b = r.b[4*dim:]
		c.vecPut, c.vecs = append(c.vecPut, id), append(c.vecs, v)
	}
	c.vecDel = r.strs()
	for i, n := 0, r.uvarint(); i < n && r.err == nil; i++ {
		c.kwPut = append(c.kwPut, engine.IndexedChunk{ID: r.str(), Text: r.str()})
	}
	c.kwDel = r.strs()
	if r.err != nil || len(r.b) != 0 {
		return nil, errBadChange
	}
	return c, nil
}
