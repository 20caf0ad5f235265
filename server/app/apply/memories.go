package apply

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/chunk"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/engine/parse"
)

// MetaSourceHash is the document meta key holding the SHA-256 of the
// local file a document was applied from: a changed file is re-ingested,
// an unchanged one is left alone.
const MetaSourceHash = "source_sha256"

// memories creates missing memories and plans their documents. A memory's
// settings cannot change in place (its vectors depend on them), so a
// declared setting that differs from the server's is an error; chunking
// is the exception (see chunking).
func (pl *planner) memories(ctx context.Context) error {
	mem := pl.svc.Memory
	for _, s := range pl.spec.Memories {
		owner := pl.owner(s.Owner)
		name := owner + "/" + s.Name
		cur, err := mem.Get(ctx, owner, s.Name)
		switch {
		case engine.IsNotFound(err):
			req := memory.CreateRequest{Name: s.Name, Description: s.Description, EmbeddingModel: s.EmbeddingModel,
				ChunkSize: s.ChunkSize, ChunkOverlap: s.ChunkOverlap, TopK: s.TopK, Chunking: memory.CloneChunking(s.Chunking)}
			pl.plan.add("create", "memory", name, "", func(ctx context.Context) error {
				_, err := mem.Create(ctx, owner, req)
				return err
			})
			cur = nil
		case err != nil:
			return err
		default:
			if err := sameMemory(s, cur); err != nil {
				return fmt.Errorf("memory %s: %w; a memory's settings cannot change in place: rename it or delete it first", name, err)
			}
		}
		want, err := wantChunking(s, cur)
		if err != nil {
			return fmt.Errorf("memory %s: %w", name, err)
		}
		if err := pl.documents(ctx, owner, s, cur, want); err != nil {
			return err
		}
		if cur != nil && s.Chunking != nil && !memory.SameChunking(want, cur.Chunking) {
			// Last, after the documents: an apply that stops half way
			// still sees the old chunking next time, and plans again the
			// documents that were not uploaded yet.
			pl.plan.add("update", "memory", name, "chunking "+describeChunking(want), func(ctx context.Context) error {
				_, err := mem.SetChunking(ctx, owner, s.Name, want)
				return err
			})
		}
	}
	return nil
}

// wantChunking returns the declared chunking normalized for the memory's
// chunk size (nil when the files declare none).
func wantChunking(s MemorySpec, cur *memory.Memory) (*chunk.Settings, error) {
	if s.Chunking == nil {
		return nil, nil
	}
	size := chunk.MemoryDefaultSize
	switch {
	case cur != nil:
		size = cur.ChunkSize
	case s.ChunkSize != nil:
		size = *s.ChunkSize
	}
	return memory.CloneChunking(s.Chunking).Normalize("chunking", size)
}

func describeChunking(s *chunk.Settings) string {
	if s == nil {
		return chunk.ModeSize
	}
	if n := s.ParentSize(); n > 0 {
		return fmt.Sprintf("%s, parent max_size %d", s.Mode, n)
	}
	return s.Mode
}

func sameMemory(s MemorySpec, m *memory.Memory) error {
	diff := func(field string, want, have any) error {
		return fmt.Errorf("%s is %v on the server, %v in the files", field, have, want)
	}
	switch {
	case s.Description != m.Description:
		return diff("description", s.Description, m.Description)
	case s.EmbeddingModel != "" && s.EmbeddingModel != m.EmbeddingModel:
		return diff("embedding_model", s.EmbeddingModel, m.EmbeddingModel)
	case s.ChunkSize != nil && *s.ChunkSize != m.ChunkSize:
		return diff("chunk_size", *s.ChunkSize, m.ChunkSize)
	case s.ChunkOverlap != nil && *s.ChunkOverlap != m.ChunkOverlap:
		return diff("chunk_overlap", *s.ChunkOverlap, m.ChunkOverlap)
	case s.TopK != nil && *s.TopK != m.TopK:
		return diff("top_k", *s.TopK, m.TopK)
	}
	return nil
}

// documents plans the upload of each declared file that is new or whose
// bytes or meta changed since it was applied, or, when the files declare
// the memory's chunking (want), that was cut with other settings; and with
// Prune the deletion of the memory's other documents. Declared chunking
// is stored on each upload, so what a document was cut with is known.
func (pl *planner) documents(ctx context.Context, owner string, s MemorySpec, cur *memory.Memory, want *chunk.Settings) error {
	mem := pl.svc.Memory
	have := map[string]*memory.Document{}
	if cur != nil {
		_, docs, err := mem.Documents(ctx, owner, s.Name)
		if err != nil {
			return err
		}
		for _, d := range docs {
			have[d.Name] = d
		}
	}
	declared := map[string]bool{}
	for _, d := range s.Documents {
		data, err := os.ReadFile(d.Path)
		if err != nil {
			return fmt.Errorf("memory %s/%s: %w", owner, s.Name, err)
		}
		name := d.Name
		if name == "" {
			name = filepath.Base(d.Path)
		}
		if declared[name] {
			return fmt.Errorf("memory %s/%s: document %q is declared twice", owner, s.Name, name)
		}
		declared[name] = true
		sum := sha256.Sum256(data)
		meta := maps.Clone(d.Meta)
		if meta == nil {
			meta = map[string]string{}
		}
		meta[MetaSourceHash] = hex.EncodeToString(sum[:])
		label := owner + "/" + s.Name + "/" + name
		doc := have[name]
		action, detail := "create", d.Path
		if doc != nil {
			cutWith := doc.Current.Chunking
			if cutWith == nil {
				cutWith = cur.Chunking
			}
			rechunk := s.Chunking != nil && !memory.SameChunking(cutWith, want)
			if maps.Equal(doc.Current.Meta, meta) && !rechunk {
				continue
			}
			action = "update"
			if rechunk {
				detail += ", chunking " + describeChunking(want)
			}
		}
		pl.plan.add(action, "document", label, detail, func(ctx context.Context) error {
			return upload(ctx, mem, owner, s.Name, name, meta, data, want)
		})
	}
	if pl.opts.Prune {
		for name := range have {
			if !declared[name] {
				pl.plan.add("delete", "document", owner+"/"+s.Name+"/"+name, "", func(ctx context.Context) error {
					return mem.DeleteDocument(ctx, owner, s.Name, name)
				})
			}
		}
	}
	return nil
}

// upload stores a document through the two steps of the upload API, with
// chunking for this upload when set; the memory engine queues its
// ingestion.
func upload(ctx context.Context, mem *memory.Service, owner, memName, name string, meta map[string]string, data []byte, chunking *chunk.Settings) error {
	ticket, err := mem.CreateUploadChunked(ctx, owner, memName, name, meta, memory.CloneChunking(chunking))
	if err != nil {
		return err
	}
	ct, known := parse.TypeForName(name)
	if !known {
		ct = parse.TypeText
	}
	_, err = mem.CompleteUpload(ctx, memory.UploadRequest{Token: ticket.Token, Owner: owner, ContentType: ct, Body: bytes.NewReader(data)})
	return err
}
