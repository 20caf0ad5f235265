package memory

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// MaxChunkPage is the most chunks one DocumentChunks page returns.
const MaxChunkPage = 200

// DocumentChunk is one chunk of a document's live version, in document
// order: what retrieval searches and returns.
type DocumentChunk struct {
	Index int    `json:"index"`
	ID    string `json:"id"`
	Text  string `json:"text"`
	// Heading is the chunk's heading path
	// (docs/memories-and-retrieval.md#structure-aware-chunking), absent
	// with size chunking.
	Heading string `json:"heading,omitempty"`
}

// ChunkPage is a page of a document's chunks. Total counts the live
// version's chunks (0 while the first upload is not ingested); Version is
// that version's id.
type ChunkPage struct {
	Document *Document
	Version  string
	Total    int
	Chunks   []DocumentChunk
}

// DocumentChunks returns up to limit chunks of the live version of an
// owner's document, starting at chunk offset. It reads only the page's
// chunk records (they are keyed by version and position).
func (s *Service) DocumentChunks(ctx context.Context, owner, memoryName, name string, offset, limit int) (*ChunkPage, error) {
	if offset < 0 {
		return nil, engine.FieldError("offset", "must be 0 or more")
	}
	if limit < 1 || limit > MaxChunkPage {
		return nil, engine.FieldError("limit", "must be from 1 to %d", MaxChunkPage)
	}
	page := &ChunkPage{Chunks: []DocumentChunk{}}
	err := s.store.View(ctx, func(tx engine.Tx) error {
		var m Memory
		var d Document
		if err := getMemory(tx, owner, memoryName, &m); err != nil {
			return err
		}
		if err := getDoc(tx, m.ID, name, &d); err != nil {
			return err
		}
		page.Document = &d
		if d.Live == nil {
			return nil
		}
		page.Version, page.Total = d.Live.ID, d.Live.Chunks
		if offset >= d.Live.Chunks {
			return nil
		}
		prefix := chunkPrefix(m.ID)
		after := ""
		if offset > 0 {
			after = chunkKey(m.ID, chunkID(d.Live.ID, offset-1))
		}
		return tx.Scan(prefix+d.Live.ID+".", after, func(key string, b []byte) error {
			if len(page.Chunks) == limit || offset+len(page.Chunks) >= d.Live.Chunks {
				return engine.ErrStopScan
			}
			var r chunkRecord
			if err := json.Unmarshal(b, &r); err != nil {
				return err
			}
			page.Chunks = append(page.Chunks, DocumentChunk{Index: offset + len(page.Chunks), ID: strings.TrimPrefix(key, prefix), Text: r.Text, Heading: r.Heading})
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return page, nil
}
