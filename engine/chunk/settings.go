package chunk

import "github.com/hearth-dev/hearth/engine"

// Chunking modes (docs/memories-and-retrieval.md#structure-aware-chunking).
const (
	// ModeSize cuts text by size and overlap only (Split), the default.
	ModeSize = "size"
	// ModeStructure cuts markdown and HTML at headings first (Structure).
	ModeStructure = "structure"
	// DefaultParentSize is the largest parent, in runes, of parent-child
	// mode when the settings name none (raised to the chunk size).
	DefaultParentSize = 8000
)

// Settings are the chunk settings of a memory or of one document upload:
// {"mode": "size"|"structure", "parent": {"max_size": N}}. A nil *Settings
// is ModeSize without parents, the chunking of memories created before
// these settings existed.
type Settings struct {
	Mode   string          `json:"mode,omitempty"`
	Parent *ParentSettings `json:"parent,omitempty"`
}

// ParentSettings turn on parent-child mode: retrieval matches the small
// chunks and hands the model the part of their section, of at most MaxSize
// runes, that holds them.
type ParentSettings struct {
	MaxSize int `json:"max_size,omitempty"`
}

// Structured reports whether s cuts at headings.
func (s *Settings) Structured() bool { return s != nil && s.Mode == ModeStructure }

// ParentSize returns the largest parent in runes, or 0 when parent-child
// mode is off.
func (s *Settings) ParentSize() int {
	if !s.Structured() || s.Parent == nil {
		return 0
	}
	return s.Parent.MaxSize
}

// Normalize checks s for a memory or upload with chunkSize, fills the
// defaults in place, and returns s; nil stays nil. Errors are
// engine.FieldErrors naming field ("chunking") and the sub-field.
func (s *Settings) Normalize(field string, chunkSize int) (*Settings, error) {
	if s == nil {
		return nil, nil
	}
	switch s.Mode {
	case "":
		s.Mode = ModeSize
	case ModeSize, ModeStructure:
	default:
		return nil, engine.FieldError(field+".mode", "must be %q or %q, got %q", ModeSize, ModeStructure, s.Mode)
	}
	if s.Parent == nil {
		return s, nil
	}
	if s.Mode != ModeStructure {
		return nil, engine.FieldError(field+".parent", "needs mode %q: parents are the sections headings delimit", ModeStructure)
	}
	if s.Parent.MaxSize == 0 {
		s.Parent.MaxSize = min(max(DefaultParentSize, chunkSize), MemoryMaxSize)
	}
	if s.Parent.MaxSize < chunkSize || s.Parent.MaxSize > MemoryMaxSize {
		return nil, engine.FieldError(field+".parent.max_size", "must be between chunk_size (%d) and %d, got %d", chunkSize, MemoryMaxSize, s.Parent.MaxSize)
	}
	return s, nil
}
