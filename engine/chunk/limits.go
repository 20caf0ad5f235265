package chunk

import "github.com/hearth-dev/hearth/engine"

// Limits and defaults of POST /v1/chunker
// (https://langbase.com/docs/api-reference/chunker): chunkMaxLength
// 1024..30000, chunkOverlap at least 256; Hearth also asks the overlap to
// be at most half of chunkMaxLength (see Limits.Validate).
const (
	ChunkerMinLength      = 1024
	ChunkerMaxLength      = 30000
	ChunkerDefaultLength  = 1024
	ChunkerMinOverlap     = 256
	ChunkerDefaultOverlap = 256
)

// Limits and defaults of a memory's chunk_size and chunk_overlap
// (https://langbase.com/docs/api-reference/memory/create): chunk_size at
// most 30000, chunk_overlap at most half of chunk_size. The contract gives
// no lower bound for either, so Hearth only asks for a positive size and a
// non-negative overlap.
const (
	MemoryMinSize        = 1
	MemoryMaxSize        = 30000
	MemoryDefaultSize    = 10000
	MemoryMinOverlap     = 0
	MemoryDefaultOverlap = 2048
)

// Limits bounds a chunk length and overlap pair. The overlap must also be
// at most half the length: each chunk then moves at least a quarter of the
// length past the one before (see spans), so the chunks of a text hold at
// most about four times its bytes. An overlap just below the length made
// one chunk per rune, each nearly as long as the limit: 40 KB of text gave
// 400 MB of chunks.
type Limits struct {
	MinLength, MaxLength int
	MinOverlap           int
}

// ChunkerLimits returns the limits of POST /v1/chunker.
func ChunkerLimits() Limits {
	return Limits{MinLength: ChunkerMinLength, MaxLength: ChunkerMaxLength, MinOverlap: ChunkerMinOverlap}
}

// MemoryLimits returns the limits of a memory's chunk_size and chunk_overlap.
func MemoryLimits() Limits {
	return Limits{MinLength: MemoryMinSize, MaxLength: MemoryMaxSize, MinOverlap: MemoryMinOverlap}
}

// Validate checks maxLen and overlap against l. On failure it returns an
// engine.FieldError naming lengthField or overlapField (the request's own
// field names, such as "chunkMaxLength" or "chunk_overlap") and the rule.
func (l Limits) Validate(maxLen, overlap int, lengthField, overlapField string) error {
	if maxLen < l.MinLength || maxLen > l.MaxLength {
		return engine.FieldError(lengthField, "must be between %d and %d, got %d", l.MinLength, l.MaxLength, maxLen)
	}
	if overlap < l.MinOverlap {
		return engine.FieldError(overlapField, "must be at least %d, got %d", l.MinOverlap, overlap)
	}
	if overlap > maxLen/2 {
		return engine.FieldError(overlapField, "must be at most half of %s (%d), got %d", lengthField, maxLen/2, overlap)
	}
	return nil
}

// MaxOverlap returns the largest overlap Validate accepts with maxLen.
func MaxOverlap(maxLen int) int { return max(0, maxLen/2) }
