package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// Export is a memory pack being written (docs/memories-and-retrieval.md#memory-packs). OpenExport
// checks what can fail before a byte is sent; WriteTo streams the pack.
type Export struct {
	s      *Service
	m      Memory
	header PackHeader
	docs   []exportDoc
}

// exportDoc is a document whose live version goes into the pack.
type exportDoc struct{ name, version string }

// exportBatch is how many chunks are read (records and vectors) at once.
const exportBatch = 256

// OpenExport looks up the owner's memory and lists the documents that have
// a live version; documents without one (still queued or in progress, or
// failed on their first upload) are not exported. Only the names are kept:
// WriteTo reads each document, its file and its chunks as it writes them.
func (s *Service) OpenExport(ctx context.Context, owner, name string) (*Export, error) {
	e := &Export{s: s}
	err := s.store.View(ctx, func(tx engine.Tx) error {
		if err := getMemory(tx, owner, name, &e.m); err != nil {
			return err
		}
		return engine.ScanJSON(tx, docPrefix(e.m.ID), func(d *Document) error {
			if d.Live != nil {
				e.docs = append(e.docs, exportDoc{d.Name, d.Live.ID})
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	dim, err := s.vectorDimension(ctx, &e.m)
	if err != nil {
		return nil, err
	}
	m := &e.m
	e.header = PackHeader{Format: PackFormat, Version: PackVersion, CreatedAt: s.now().UTC(), Dimension: dim, Documents: len(e.docs),
		Memory: PackMemory{Name: m.Name, Description: m.Description, EmbeddingModel: m.EmbeddingModel, ChunkSize: m.ChunkSize,
			ChunkOverlap: m.ChunkOverlap, TopK: m.TopK, Rerank: m.Rerank, Chunking: m.Chunking}}
	return e, nil
}

// Header is the pack's header.
func (e *Export) Header() PackHeader { return e.header }

// vectorDimension is the length of the memory's vectors: that of the first
// stored chunk's vector, 0 for keyword-only or empty memories.
func (s *Service) vectorDimension(ctx context.Context, m *Memory) (int, error) {
	if m.KeywordOnly() {
		return 0, nil
	}
	var first string
	err := s.store.View(ctx, func(tx engine.Tx) error {
		return tx.Scan(chunkPrefix(m.ID), "", func(key string, _ []byte) error {
			first = strings.TrimPrefix(key, chunkPrefix(m.ID))
			return engine.ErrStopScan
		})
	})
	if err != nil || first == "" {
		return 0, err
	}
	vecs, err := s.index.Vectors(ctx, m.ID, []string{first})
	if err != nil {
		return 0, err
	}
	return len(vecs[0]), nil
}

// WriteTo streams the pack to w. A document whose live version changes
// while the pack is written fails the export with CONFLICT; the stream
// then has no end record, and an import refuses it.
func (e *Export) WriteTo(ctx context.Context, w io.Writer) error {
	pw, err := newPackWriter(w)
	if err != nil {
		return err
	}
	if err := pw.json(recHeader, &e.header); err != nil {
		return err
	}
	for _, ed := range e.docs {
		if err := e.writeDoc(ctx, pw, ed); err != nil {
			return err
		}
	}
	return pw.end()
}

func (e *Export) changed(name string) error {
	return engine.Errorf(engine.CodeConflict, "document %q of memory %q changed during the export; export again", name, e.m.Name)
}

func (e *Export) writeDoc(ctx context.Context, pw *packWriter, ed exportDoc) error {
	s := e.s
	var d Document
	err := s.store.View(ctx, func(tx engine.Tx) error { return getDoc(tx, e.m.ID, ed.name, &d) })
	if engine.IsNotFound(err) || (err == nil && (d.Live == nil || d.Live.ID != ed.version)) {
		return e.changed(ed.name)
	}
	if err != nil {
		return err
	}
	v := d.Live
	var file []byte
	if v.Blob != "" {
		file, err = s.store.GetBlob(ctx, v.Blob)
		if err != nil && !engine.IsNotFound(err) {
			return err
		}
	}
	pd := packDoc{Name: d.Name, Version: v.ID, ContentType: v.ContentType, Size: v.Size, Meta: v.Meta, Chunks: v.Chunks,
		Chunking: v.Chunking, UploadedAt: v.UploadedAt, CreatedAt: d.CreatedAt, File: file != nil}
	if err := pw.json(recDoc, &pd); err != nil {
		return err
	}
	if file != nil {
		if err := pw.file(bytes.NewReader(file)); err != nil {
			return err
		}
	}
	n, after := 0, ""
	for {
		ids, recs, err := e.chunkPage(ctx, v.ID, after)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			break
		}
		after = chunkKey(e.m.ID, ids[len(ids)-1])
		vecs := make([][]float32, len(ids))
		if !e.m.KeywordOnly() {
			if vecs, err = s.index.Vectors(ctx, e.m.ID, ids); err != nil {
				return err
			}
		}
		for i, id := range ids {
			if len(vecs[i]) != e.header.Dimension {
				if vecs[i] == nil {
					return e.changed(ed.name)
				}
				return engine.Errorf(engine.CodeInternal, "chunk %s of memory %q has a vector of %d dimensions, others have %d", id, e.m.Name, len(vecs[i]), e.header.Dimension)
			}
			r := recs[i]
			if err := pw.chunk(&packChunk{ID: id, Text: r.Text, Heading: r.Heading, Parent: r.Parent, ParentChunk: r.ParentChunk}, vecs[i]); err != nil {
				return err
			}
		}
		n += len(ids)
	}
	if n != v.Chunks {
		return e.changed(ed.name)
	}
	return nil
}

// chunkPage reads up to exportBatch chunk records of a version after the
// key after ("" from the start).
func (e *Export) chunkPage(ctx context.Context, version, after string) ([]string, []chunkRecord, error) {
	var ids []string
	var recs []chunkRecord
	prefix := chunkPrefix(e.m.ID)
	err := e.s.store.View(ctx, func(tx engine.Tx) error {
		return tx.Scan(prefix+versionPrefix(version), after, func(key string, b []byte) error {
			var r chunkRecord
			if err := json.Unmarshal(b, &r); err != nil {
				return engine.Wrap(err, engine.CodeInternal, "malformed chunk record %s", key)
			}
			ids = append(ids, strings.TrimPrefix(key, prefix))
			recs = append(recs, r)
			if len(ids) >= exportBatch {
				return engine.ErrStopScan
			}
			return nil
		})
	})
	return ids, recs, err
}
