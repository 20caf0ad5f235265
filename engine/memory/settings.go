package memory

import (
	"context"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/chunk"
)

// SetChunking changes how a memory cuts the documents uploaded from now
// on (docs/memories-and-retrieval.md#structure-aware-chunking); nil is size/overlap chunking.
// Documents already ingested keep their chunks until they are uploaded
// again (hearth apply does that for the documents it declares). Errors
// name field "chunking".
func (s *Service) SetChunking(ctx context.Context, owner, name string, settings *chunk.Settings) (*Memory, error) {
	var m Memory
	err := s.store.Update(ctx, func(tx engine.Tx) error {
		if err := getMemory(tx, owner, name, &m); err != nil {
			return err
		}
		set, err := CloneChunking(settings).Normalize("chunking", m.ChunkSize)
		if err != nil {
			return err
		}
		m.Chunking, m.UpdatedAt = set, engine.NowFrom(ctx, s.now).UTC()
		if err := s.memoryChanged(tx, owner, name); err != nil {
			return err
		}
		return tx.Put(memoryKey(owner, name), &m)
	})
	s.memoryWritten(owner, name)
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// CloneChunking returns a deep copy of s (Normalize fills defaults in
// place).
func CloneChunking(s *chunk.Settings) *chunk.Settings {
	if s == nil {
		return nil
	}
	c := *s
	if s.Parent != nil {
		p := *s.Parent
		c.Parent = &p
	}
	return &c
}

// SameChunking reports whether a and b cut documents alike; nil is
// size/overlap chunking.
func SameChunking(a, b *chunk.Settings) bool {
	mode := func(s *chunk.Settings) string {
		if s == nil || s.Mode == "" {
			return chunk.ModeSize
		}
		return s.Mode
	}
	return mode(a) == mode(b) && a.ParentSize() == b.ParentSize()
}
