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
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/engine/parse"
)

// MetaSourceHash is the document meta key holding the SHA-256 of the
// local file a document was applied from: a changed file is re-ingested,
// an unchanged one is left alone.
const MetaSourceHash = "source_sha256"

// memories creates missing memories and plans their documents. A memory's
// settings cannot change in place (its vectors depend on them), so a
// declared setting that differs from the server's is an error.
func (pl *planner) memories(ctx context.Context) error {
	mem := pl.svc.Memory
	for _, s := range pl.spec.Memories {
		owner := pl.owner(s.Owner)
		name := owner + "/" + s.Name
		cur, err := mem.Get(ctx, owner, s.Name)
		switch {
		case engine.IsNotFound(err):
			req := memory.CreateRequest{Name: s.Name, Description: s.Description, EmbeddingModel: s.EmbeddingModel,
				ChunkSize: s.ChunkSize, ChunkOverlap: s.ChunkOverlap, TopK: s.TopK}
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
		if err := pl.documents(ctx, owner, s, cur != nil); err != nil {
			return err
		}
	}
	return nil
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
// bytes or meta changed since it was applied, and with Prune the deletion
// of the memory's other documents.
func (pl *planner) documents(ctx context.Context, owner string, s MemorySpec, exists bool) error {
	mem := pl.svc.Memory
	have := map[string]*memory.Document{}
	if exists {
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
		cur := have[name]
		action := "create"
		if cur != nil {
			if maps.Equal(cur.Current.Meta, meta) {
				continue
			}
			action = "update"
		}
		pl.plan.add(action, "document", label, d.Path, func(ctx context.Context) error {
			return upload(ctx, mem, owner, s.Name, name, meta, data)
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

// upload stores a document through the two steps of the upload API;
// the memory engine queues its ingestion.
func upload(ctx context.Context, mem *memory.Service, owner, memName, name string, meta map[string]string, data []byte) error {
	ticket, err := mem.CreateUpload(ctx, owner, memName, name, meta)
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
