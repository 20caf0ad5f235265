package chunk

import "github.com/hearth-dev/hearth/engine"

// Bounds of one POST /v1/chunker answer. With the overlap at most half the
// length and a length of at least ChunkerMinLength, a request body of the
// default 8 MiB stays within both; they stop a larger body, or a future
// change of the rules, from turning one request into an answer that does
// not fit in memory.
const (
	ChunkerMaxChunks = 50_000
	ChunkerMaxBytes  = 32 << 20
)

// Bounds limits the chunks of one text: how many, and their bytes summed.
// Zero fields mean no limit.
type Bounds struct {
	MaxChunks int
	MaxBytes  int
}

// ChunkerBounds returns the bounds of POST /v1/chunker.
func ChunkerBounds() Bounds { return Bounds{MaxChunks: ChunkerMaxChunks, MaxBytes: ChunkerMaxBytes} }

// SplitWithin is Split refused past b: more than b.MaxChunks chunks, or
// chunks of more than b.MaxBytes bytes in all, fail with an
// engine.FieldError on field that names the limit. The chunks share the
// memory of text, so the check costs no copy of them.
func SplitWithin(text string, maxLen, overlap int, b Bounds, field string) ([]string, error) {
	out := Split(text, maxLen, overlap)
	if b.MaxChunks > 0 && len(out) > b.MaxChunks {
		return nil, engine.FieldError(field, "would make %d chunks, more than the limit of %d; send less text or a larger chunk length", len(out), b.MaxChunks)
	}
	if b.MaxBytes > 0 {
		total := 0
		for _, c := range out {
			if total += len(c); total > b.MaxBytes {
				return nil, engine.FieldError(field, "would make more than %d bytes of chunks, the limit; send less text or a smaller overlap", b.MaxBytes)
			}
		}
	}
	return out, nil
}
