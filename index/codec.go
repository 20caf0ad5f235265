package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Snapshot format (little endian), version 1:
//
//	header: magic "HRTHNSW1", then u32 dim, m, efConstruction, nodes,
//	        tombstones, entry, maxLevel, hasEntry
//	node:   u8 level, u8 dead, uvarint len(id), id bytes, dim x f32 vector,
//	        then for each layer 0..level: u32 count, count x u32 neighbour
//
// The vectors are in the snapshot so a restart needs nothing else.
const snapMagic = "HRTHNSW1"

var errBadSnapshot = errors.New("index: malformed HNSW snapshot")

// WriteTo writes the graph in the snapshot format. Searches continue while
// it runs; writers wait.
func (h *HNSW) WriteTo(w io.Writer) (int64, error) {
	h.wmu.Lock()
	defer h.wmu.Unlock()
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<16)
	if err := h.g.encode(bw); err != nil {
		return cw.n, err
	}
	err := bw.Flush()
	return cw.n, err
}

// ReadFrom replaces the graph with one read from a snapshot. On error the
// current graph is kept.
func (h *HNSW) ReadFrom(r io.Reader) (int64, error) {
	cr := &countReader{r: r}
	g, err := decodeGraph(bufio.NewReaderSize(cr, 1<<16), h.cfg)
	if err != nil {
		return cr.n, err
	}
	h.wmu.Lock()
	defer h.wmu.Unlock()
	h.mu.Lock()
	h.g = g
	h.mu.Unlock()
	return cr.n, nil
}

func (g *graph) encode(w *bufio.Writer) error {
	var hdr []byte
	hdr = append(hdr, snapMagic...)
	entry, top, ok := g.entryPoint()
	has := uint32(0)
	if ok {
		has = 1
	}
	for _, x := range []uint32{uint32(g.dim), uint32(g.m), uint32(g.efC), uint32(len(g.ids)),
		uint32(g.nDead), entry, uint32(top), has} {
		hdr = binary.LittleEndian.AppendUint32(hdr, x)
	}
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	buf := make([]byte, 0, 256+g.dim*4)
	var nb []uint32
	for i := range g.ids {
		n := uint32(i)
		buf = buf[:0]
		dead := byte(0)
		if g.dead[i] {
			dead = 1
		}
		buf = append(buf, g.levels[i], dead)
		buf = binary.AppendUvarint(buf, uint64(len(g.ids[i])))
		buf = append(buf, g.ids[i]...)
		for _, x := range g.vec(n) {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
		}
		for lc := 0; lc <= int(g.levels[i]); lc++ {
			nb = g.links(n, lc, nb[:0])
			buf = binary.LittleEndian.AppendUint32(buf, uint32(len(nb)))
			for _, x := range nb {
				buf = binary.LittleEndian.AppendUint32(buf, x)
			}
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

func decodeGraph(r *bufio.Reader, cfg HNSWConfig) (*graph, error) {
	hdr := make([]byte, len(snapMagic)+8*4)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, fmt.Errorf("%w: header: %v", errBadSnapshot, err)
	}
	if string(hdr[:len(snapMagic)]) != snapMagic {
		return nil, fmt.Errorf("%w: bad magic", errBadSnapshot)
	}
	u := func(i int) uint32 { return binary.LittleEndian.Uint32(hdr[len(snapMagic)+4*i:]) }
	dim, m, efC, n := int(u(0)), int(u(1)), int(u(2)), int(u(3))
	if m < 2 || m > 1024 || dim > 1<<16 || uint64(n) > 1<<31 {
		return nil, fmt.Errorf("%w: bad header", errBadSnapshot)
	}
	cfg.M, cfg.EfConstruction = m, efC
	g := newGraph(cfg, dim)
	entry, top, hasEntry := u(5), int(u(6)), u(7) == 1
	if top > 31 {
		return nil, fmt.Errorf("%w: bad header", errBadSnapshot)
	}
	g.vecs = make([]float32, 0, n*dim)
	g.ids = make([]string, 0, n)
	g.dead = make([]bool, 0, n)
	g.levels = make([]uint8, 0, n)
	g.l0 = make([]uint32, n*(g.m0+1))
	g.up = make([][]uint32, n)
	g.byID = make(map[string]uint32, n)
	vb := make([]byte, dim*4)
	var w4 [4]byte
	read32 := func() (uint32, error) {
		_, err := io.ReadFull(r, w4[:])
		return binary.LittleEndian.Uint32(w4[:]), err
	}
	links := make([]uint32, 0, g.m0)
	for i := 0; i < n; i++ {
		var lv, dead byte
		var err error
		if lv, err = r.ReadByte(); err == nil {
			dead, err = r.ReadByte()
		}
		idLen, err2 := binary.ReadUvarint(r)
		if err != nil || err2 != nil || idLen > 1<<16 {
			return nil, fmt.Errorf("%w: node %d", errBadSnapshot, i)
		}
		idb := make([]byte, idLen)
		if _, err := io.ReadFull(r, idb); err != nil {
			return nil, fmt.Errorf("%w: node %d id", errBadSnapshot, i)
		}
		if _, err := io.ReadFull(r, vb); err != nil {
			return nil, fmt.Errorf("%w: node %d vector", errBadSnapshot, i)
		}
		for j := 0; j < dim; j++ {
			g.vecs = append(g.vecs, math.Float32frombits(binary.LittleEndian.Uint32(vb[4*j:])))
		}
		id := string(idb)
		g.ids = append(g.ids, id)
		g.levels = append(g.levels, lv)
		g.dead = append(g.dead, dead == 1)
		if dead == 1 {
			g.nDead++
		} else {
			g.byID[id] = uint32(i)
		}
		if lv > 0 {
			g.up[i] = make([]uint32, int(lv)*(g.m+1))
		}
		for lc := 0; lc <= int(lv); lc++ {
			cnt, err := read32()
			if err != nil || int(cnt) > g.maxLinks(lc) {
				return nil, fmt.Errorf("%w: node %d links", errBadSnapshot, i)
			}
			links = links[:0]
			for j := 0; j < int(cnt); j++ {
				x, err := read32()
				if err != nil || int(x) >= n {
					return nil, fmt.Errorf("%w: node %d link", errBadSnapshot, i)
				}
				links = append(links, x)
			}
			g.setLinks(uint32(i), lc, links)
		}
	}
	if g.nDead != int(u(4)) || (hasEntry && (int(entry) >= n || int(g.levels[entry]) != top)) {
		return nil, fmt.Errorf("%w: inconsistent header", errBadSnapshot)
	}
	if hasEntry {
		g.setEntry(entry, top)
	}
	g.codes = make([]int8, n*dim)
	g.inv = make([]float32, n)
	for i := range n {
		g.inv[i] = quantize(g.vec(uint32(i)), g.code(uint32(i)))
	}
	return g, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
