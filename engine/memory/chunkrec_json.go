package memory

import (
	"slices"

	"github.com/hearth-dev/hearth/engine"
)

// AppendJSON implements engine.JSONAppender: the bytes json.Marshal writes
// for the record (TestChunkRecordJSONMatchesEncodingJSON,
// FuzzChunkRecordJSON), written without reflection into a buffer grown
// once, since every chunk of every upload is stored this way (encoding
// them was 1.3 % of ingestion's CPU time and 3 % of its allocations,
// docs/bench-log/2026-12-04.md, "Ingestion through HTTP (issue 19, round 4)").
func (r *chunkRecord) AppendJSON(b []byte) ([]byte, error) {
	// Room for the fields unescaped, their names and quotes.
	b = slices.Grow(b, len(r.Doc)+len(r.Text)+len(r.Heading)+len(r.Parent)+len(r.ParentChunk)+64)
	b = append(b, `{"doc":`...)
	b = engine.AppendJSONString(b, r.Doc)
	b = append(b, `,"text":`...)
	b = engine.AppendJSONString(b, r.Text)
	if r.Heading != "" {
		b = append(b, `,"heading":`...)
		b = engine.AppendJSONString(b, r.Heading)
	}
	if r.Parent != "" {
		b = append(b, `,"parent":`...)
		b = engine.AppendJSONString(b, r.Parent)
	}
	if r.ParentChunk != "" {
		b = append(b, `,"parent_chunk":`...)
		b = engine.AppendJSONString(b, r.ParentChunk)
	}
	return append(b, '}'), nil
}
