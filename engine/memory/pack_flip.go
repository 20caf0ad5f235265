package memory

import (
	"context"

	"github.com/hearth-dev/hearth/engine"
)

// checkReplace returns the existing memory of m's name (nil when there is
// none), refusing it unless replace is set and it has m's embedding model
// and the pack's vector dimension.
func (s *Service) checkReplace(ctx context.Context, owner string, m *Memory, dim int, replace bool) (*Memory, error) {
	old, err := s.Get(ctx, owner, m.Name)
	if engine.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !replace {
		return nil, engine.Errorf(engine.CodeConflict, "memory %q already exists: import under another name, or replace it (replace=true, hearth memory import --replace)", m.Name)
	}
	if old.EmbeddingModel != m.EmbeddingModel {
		return nil, &engine.Error{Code: engine.CodeConflict, Field: "pack.memory.embedding_model",
			Message: "memory " + m.Name + " uses embedding model " + old.EmbeddingModel + " and the pack " + m.EmbeddingModel + ": a replacement must use the same model"}
	}
	oldDim, err := s.vectorDimension(ctx, old)
	if err != nil {
		return nil, err
	}
	if oldDim != 0 && dim != 0 && oldDim != dim {
		return nil, engine.FieldError("pack.dimension", "memory %s has vectors of %d dimensions and the pack %d: a replacement must have the same dimension", m.Name, oldDim, dim)
	}
	return old, nil
}

// flipImport makes the staged memory visible in one transaction that ends
// its guard job and, when replacing, removes the old memory's record and
// queues its drop, which then runs at once.
func (s *Service) flipImport(ctx context.Context, im *importer, old *Memory) (*ImportResult, error) {
	m := im.m
	var drop *Job
	err := s.update(ctx, func(tx engine.Tx) error {
		drop = nil
		var cur Memory
		err := getMemory(tx, m.Owner, m.Name, &cur)
		switch {
		case engine.IsNotFound(err):
		case err != nil:
			return err
		case old == nil || cur.ID != old.ID:
			return engine.Errorf(engine.CodeConflict, "memory %q was created or replaced while the pack was imported", m.Name)
		default:
			drop = s.newJob(JobDrop, &cur, "", nil)
			if err := putJob(tx, drop); err != nil {
				return err
			}
			if err := s.publishDocs(tx, cur.ID); err != nil {
				return err
			}
		}
		m.UpdatedAt = s.now().UTC()
		if err := tx.Put(memoryKey(m.Owner, m.Name), m); err != nil {
			return err
		}
		if err := s.memoryChanged(tx, m.Owner, m.Name); err != nil {
			return err
		}
		if err := tx.Delete(jobKey(im.guard.ID)); err != nil {
			return err
		}
		return s.publishDocs(tx, m.ID)
	})
	s.memoryWritten(m.Owner, m.Name)
	if err != nil {
		return nil, err
	}
	s.docsets.invalidate(m.ID)
	if drop != nil {
		s.docsets.invalidate(drop.MemoryID)
		s.ingest.runInline(ctx, drop)
	}
	return &ImportResult{Memory: m, Documents: im.docs, Chunks: im.chunks, Replaced: drop != nil}, nil
}
