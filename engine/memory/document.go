package memory

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/chunk"
)

// Document statuses (docs/memories-and-retrieval.md#ingestion-and-statuses).
const (
	StatusQueued     = "queued"
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"
	StatusFailed     = "failed"
)

// Limits of document names and meta.
const (
	MaxDocumentName = 255
	MaxMetaPairs    = 10
	MaxMetaKey      = 64
	MaxMetaValue    = 512
)

// Reserved meta keys: retrieval results carry the document name under them,
// and filters may test it.
const (
	MetaDocumentName = "documentName"
	MetaDocName      = "docName"
)

// Version is one uploaded version of a document.
type Version struct {
	ID          string            `json:"id"`
	Blob        string            `json:"blob"`
	Size        int64             `json:"size"`
	ContentType string            `json:"content_type"`
	Meta        map[string]string `json:"meta"`
	Chunks      int               `json:"chunks"`
	// ChunkBytes is the bytes of the chunk texts stored for this version,
	// set when it goes live; the storage quota counts them
	// (docs/security.md#parser-and-chunker-limits). Versions that went live
	// before it was kept have 0.
	ChunkBytes int64 `json:"chunk_bytes,omitempty"`
	// Chunking, when set, overrides the memory's chunk settings for this
	// version (docs/memories-and-retrieval.md#structure-aware-chunking).
	Chunking   *chunk.Settings `json:"chunking,omitempty"`
	UploadedAt time.Time       `json:"uploaded_at"`
}

// StoredChunkBytes returns v's ChunkBytes, 0 for a nil v.
func (v *Version) StoredChunkBytes() int64 {
	if v == nil {
		return 0
	}
	return v.ChunkBytes
}

// Document is a document of a memory. Current is the latest upload; Live
// is the version whose chunks searches see. They are the same version once
// the latest upload is completed; while a replacement is queued, in
// progress or failed, the previous version stays live.
type Document struct {
	MemoryID      string    `json:"memory_id"`
	Name          string    `json:"name"`
	Status        string    `json:"status"`
	StatusMessage string    `json:"status_message"`
	Current       Version   `json:"current"`
	Live          *Version  `json:"live,omitempty"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
}

// ValidateDocumentName checks a document name: 1 to 255 bytes of UTF-8
// without '/', '\', '?', '#', '%' or control characters, and not "." or
// "..". The SDK puts names into URL paths without encoding them, so these
// characters would make the document unreachable.
func ValidateDocumentName(field, name string) error {
	switch {
	case name == "":
		return engine.FieldError(field, "is required")
	case len(name) > MaxDocumentName:
		return engine.FieldError(field, "must be at most %d bytes", MaxDocumentName)
	case !utf8.ValidString(name):
		return engine.FieldError(field, "must be valid UTF-8")
	case name == "." || name == ".." || strings.ContainsAny(name, `/\?#%`):
		return engine.FieldError(field, "%q may not contain '/', '\\', '?', '#' or '%%', or be '.' or '..'", name)
	case strings.TrimSpace(name) != name:
		return engine.FieldError(field, "may not start or end with spaces")
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return engine.FieldError(field, "may not contain control characters")
		}
	}
	return nil
}

// ValidateMeta checks upload meta: at most 10 pairs of non-empty keys up to
// 64 characters and values up to 512 characters, without the reserved keys.
func ValidateMeta(field string, meta map[string]string) error {
	if len(meta) > MaxMetaPairs {
		return engine.FieldError(field, "may hold at most %d pairs, got %d", MaxMetaPairs, len(meta))
	}
	for k, v := range meta {
		switch {
		case strings.TrimSpace(k) == "":
			return engine.FieldError(field, "keys must not be empty")
		case utf8.RuneCountInString(k) > MaxMetaKey:
			return engine.FieldError(field+"."+k, "key must be at most %d characters", MaxMetaKey)
		case utf8.RuneCountInString(v) > MaxMetaValue:
			return engine.FieldError(field+"."+k, "value must be at most %d characters", MaxMetaValue)
		case !utf8.ValidString(k) || !utf8.ValidString(v):
			return engine.FieldError(field+"."+k, "must be valid UTF-8")
		case k == MetaDocumentName || k == MetaDocName:
			return engine.FieldError(field+"."+k, "is reserved: results carry the document name under %q", MetaDocumentName)
		}
	}
	return nil
}

// Documents returns a memory and its documents, by name, in one snapshot.
func (s *Service) Documents(ctx context.Context, owner, memoryName string) (*Memory, []*Document, error) {
	var m Memory
	docs := []*Document{}
	err := s.store.View(ctx, func(tx engine.Tx) error {
		if err := getMemory(tx, owner, memoryName, &m); err != nil {
			return err
		}
		return engine.ScanJSON(tx, docPrefix(m.ID), func(d *Document) error {
			docs = append(docs, d)
			return nil
		})
	})
	if err != nil {
		return nil, nil, err
	}
	return &m, docs, nil
}

// Document returns one document.
func (s *Service) Document(ctx context.Context, owner, memoryName, name string) (*Memory, *Document, error) {
	var m Memory
	var d Document
	err := s.store.View(ctx, func(tx engine.Tx) error {
		if err := getMemory(tx, owner, memoryName, &m); err != nil {
			return err
		}
		return getDoc(tx, m.ID, name, &d)
	})
	if err != nil {
		return nil, nil, err
	}
	return &m, &d, nil
}

func getDoc(tx engine.Tx, memID, name string, d *Document) error {
	if err := tx.Get(docKey(memID, name), d); err != nil {
		if engine.IsNotFound(err) {
			return engine.NotFound("document", name)
		}
		return err
	}
	return nil
}

// DeleteDocument removes a document: its record goes in one transaction
// with durable purge jobs for its versions' chunks, vectors, index entries
// and blobs, which then run at once.
func (s *Service) DeleteDocument(ctx context.Context, owner, memoryName, name string) error {
	var jobs []*Job
	var memID string
	err := s.store.Update(ctx, func(tx engine.Tx) error {
		jobs = nil
		var m Memory
		var d Document
		if err := getMemory(tx, owner, memoryName, &m); err != nil {
			return err
		}
		if err := getDoc(tx, m.ID, name, &d); err != nil {
			return err
		}
		memID = m.ID
		if err := tx.Delete(docKey(m.ID, name)); err != nil {
			return err
		}
		if err := s.quotas.ChargeTx(tx, owner, -1, -d.Current.Size-d.Live.StoredChunkBytes()); err != nil {
			return err
		}
		versions := []Version{d.Current}
		if d.Live != nil && d.Live.ID != d.Current.ID {
			versions = append(versions, *d.Live)
		}
		for i := range versions {
			j := s.newJob(JobPurge, &m, name, &versions[i])
			if err := putJob(tx, j); err != nil {
				return err
			}
			jobs = append(jobs, j)
		}
		return s.publishDocs(tx, m.ID)
	})
	if err != nil {
		return err
	}
	s.docsets.invalidate(memID)
	for _, j := range jobs {
		s.ingest.runInline(ctx, j)
	}
	return nil
}

// RetryResult says whether a retry was started, and why not.
type RetryResult struct {
	Started bool
	Message string
}

// RetryDocument re-queues a failed document. A document in any other state
// is left alone and the result says why.
func (s *Service) RetryDocument(ctx context.Context, owner, memoryName, name string) (*RetryResult, error) {
	res := &RetryResult{}
	err := s.store.Update(ctx, func(tx engine.Tx) error {
		*res = RetryResult{}
		var m Memory
		var d Document
		if err := getMemory(tx, owner, memoryName, &m); err != nil {
			return err
		}
		if err := getDoc(tx, m.ID, name, &d); err != nil {
			return err
		}
		switch d.Status {
		case StatusFailed:
		case StatusCompleted:
			res.Message = "document is completed: there is nothing to retry"
			return nil
		default:
			res.Message = "document is already " + strings.ReplaceAll(d.Status, "_", " ") + ": there is nothing to retry"
			return nil
		}
		d.Status, d.StatusMessage, d.UpdatedAt = StatusQueued, "", s.now().UTC()
		if err := tx.Put(docKey(m.ID, name), &d); err != nil {
			return err
		}
		res.Started = true
		return s.enqueue(tx, withTrace(ctx, s.newJob(JobIngest, &m, name, &d.Current)))
	})
	if err != nil {
		return nil, err
	}
	if res.Started {
		res.Message = "embedding generation was queued again"
		s.ingest.poke()
	}
	return res, nil
}
