package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/chunk"
	"github.com/hearth-dev/hearth/engine/parse"
)

// chunkRecord is a stored chunk: its text and its document's name, and with
// structure-aware chunking its heading path and parent
// (docs/memories-and-retrieval.md#structure-aware-chunking): ParentChunk is the
// id of the chunk whose record holds the parent's text in Parent, so each
// parent is stored once.
type chunkRecord struct {
	Doc         string `json:"doc"`
	Text        string `json:"text"`
	Heading     string `json:"heading,omitempty"`
	Parent      string `json:"parent,omitempty"`
	ParentChunk string `json:"parent_chunk,omitempty"`
}

func chunkID(version string, n int) string { return fmt.Sprintf("%s.%06d", version, n) }

// errObsolete says the job's version is no longer the document's latest
// upload (replaced or deleted, or the memory is gone).
var errObsolete = errors.New("obsolete job")

// runIngest processes one document version: parse, chunk, embed in
// batches, store chunk records, add the chunks with their vectors to the
// index, then make the version live. Document problems (parse errors, provider failures,
// missing keys) fail the document and return nil; only infrastructure
// errors and shutdown are returned, and the job is then retried.
//
// A job resumed after a crash, or a retry after a failure, reuses the
// chunks the version already has stored and indexed (same text, vector in
// the index), so nothing is embedded twice.
func (s *Service) runIngest(ctx context.Context, j *Job) error {
	m, doc, err := s.startIngest(ctx, j)
	if errors.Is(err, errObsolete) {
		return s.dropObsolete(ctx, j)
	}
	if err != nil {
		return err
	}
	data, err := s.store.GetBlob(ctx, j.Blob)
	if engine.IsNotFound(err) {
		return s.failIngest(ctx, j, "the uploaded file is missing; upload the document again")
	}
	if err != nil {
		return err
	}
	if err := s.setStage(ctx, j, StageParse); err != nil {
		return err
	}
	text, err := s.Parse(ctx, doc.Current.ContentType, j.Document, data)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return ctx.Err()
	case !documentError(err):
		return err // the parser could not run: the job is retried
	default:
		return s.failIngest(ctx, j, errMessage(err))
	}
	data = nil
	overlap := ingestOverlap(m)
	// Refuse before splitting what would make far too many chunks.
	if est := utf8.RuneCountInString(text) / max(1, m.ChunkSize-overlap); est > s.cfg.MaxChunksPerDocument {
		return s.failIngest(ctx, j, fmt.Sprintf("document would make about %d chunks, more than the limit of %d; use a memory with a larger chunk_size or split the document",
			est, s.cfg.MaxChunksPerDocument))
	}
	texts, recs := s.chunk(ctx, m, doc, j, text, overlap)
	if len(texts) == 0 {
		return s.failIngest(ctx, j, "document has no text to index")
	}
	if len(texts) > s.cfg.MaxChunksPerDocument {
		return s.failIngest(ctx, j, fmt.Sprintf("document would make %d chunks, more than the limit of %d; use a memory with a larger chunk_size or split the document",
			len(texts), s.cfg.MaxChunksPerDocument))
	}
	if err := s.setStage(ctx, j, StageIndex); err != nil {
		return err
	}
	chunkBytes := recordBytes(recs)
	if err := s.checkChunkQuota(ctx, j.Owner, doc, chunkBytes); err != nil {
		if engine.ErrorCode(err) == engine.CodeUsageExceeded {
			return s.failIngest(ctx, j, "the document's chunks: "+errMessage(err))
		}
		return err
	}
	var emb engine.Embedder
	var ref engine.ModelRef
	var key string
	if !m.KeywordOnly() {
		ref, err = engine.ParseModelID("embedding_model", m.EmbeddingModel)
		if err == nil {
			emb, key, err = s.embedder(ctx, ref, j.Owner, "")
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			msg := errMessage(err)
			if errors.Is(err, engine.ErrNoProviderKey) {
				msg = engine.BackgroundKeyHint(ref.Provider)
			}
			return s.failIngest(ctx, j, "embedding model "+m.EmbeddingModel+": "+msg)
		}
	}
	todo, err := s.reuseChunks(ctx, m, j, recs)
	if err != nil {
		return err
	}
	// Embed and store what is missing, batch by batch.
	var groups [][2]int
	if emb != nil {
		groups = s.batches(emb, pick(texts, todo))
	} else {
		for i := 0; i < len(todo); i += 512 {
			groups = append(groups, [2]int{i, min(i+512, len(todo))})
		}
	}
	for _, g := range groups {
		idx := todo[g[0]:g[1]]
		var vecs [][]float32
		if emb != nil {
			vecs, err = s.embedBatch(ctx, emb, &engine.EmbedRequest{Model: ref.Model, Inputs: pick(texts, idx), Purpose: engine.EmbedDocument, APIKey: key}, true)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return s.failIngest(ctx, j, "embedding failed ("+m.EmbeddingModel+"): "+errMessage(err))
			}
		}
		batch := make([]engine.IndexedChunk, len(idx))
		for i, n := range idx {
			batch[i] = engine.IndexedChunk{ID: chunkID(j.Version, n), Text: texts[n]}
			if vecs != nil {
				batch[i].Vector = normalize(vecs[i])
			}
		}
		if err := s.writeChunkRecords(ctx, j.MemoryID, batch, pickRecords(recs, idx)); err != nil {
			return err
		}
		if err := s.index.Add(ctx, j.MemoryID, batch); err != nil {
			return err
		}
	}
	err = s.completeIngest(ctx, j, len(texts), chunkBytes)
	if engine.ErrorCode(err) == engine.CodeUsageExceeded {
		return s.failIngest(ctx, j, "the document's chunks: "+errMessage(err))
	}
	return err
}

// ingestOverlap is the overlap ingestion uses: the memory's, at most half
// its chunk size. Memories created before that rule (chunk.Limits) may
// store a larger one, which made a chunk per few characters.
func ingestOverlap(m *Memory) int { return min(m.ChunkOverlap, chunk.MaxOverlap(m.ChunkSize)) }

// Parse turns document bytes into text with the configured parser (see
// Config.Parse); the parser primitive and ingestion use it.
func (s *Service) Parse(ctx context.Context, contentType, name string, data []byte) (string, error) {
	if s.cfg.Parse != nil {
		return s.cfg.Parse(ctx, contentType, name, data)
	}
	return safeParse(contentType, name, data)
}

// documentError reports whether a parse error is a verdict on the document
// (corrupt, unsupported, too large, timed out) rather than a failure to
// run the parser.
func documentError(err error) bool {
	switch engine.ErrorCode(err) {
	case engine.CodeBadRequest, engine.CodeUnsupportedMedia, engine.CodePayloadTooLarge:
		return true
	}
	return false
}

// safeParse runs the parser, turning a panic into a document error.
func safeParse(contentType, name string, data []byte) (text string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &engine.Error{Code: engine.CodeBadRequest, Message: "could not read the document: the file is corrupt or unsupported",
				Err: fmt.Errorf("parser panic: %v\n%s", r, debug.Stack())}
		}
	}()
	return parse.Parse(contentType, name, data)
}

func pick(texts []string, idx []int) []string {
	out := make([]string, len(idx))
	for i, n := range idx {
		out[i] = texts[n]
	}
	return out
}

// reuseChunks looks at the chunks this version already has stored (an
// interrupted or failed earlier attempt) and returns the indexes of the
// chunks still to embed. Vectors are stored once, by the index: a chunk
// whose text is unchanged and whose vector the index holds needs nothing
// more (the index heals its own keyword side, see engine.ChunkSource); one
// without a vector (the attempt stopped between writing its chunk records
// and adding them to the index) is embedded again. Keyword-only chunks are
// added to the index again, which costs no embedding and covers the same
// gap. Records whose text changed are removed.
func (s *Service) reuseChunks(ctx context.Context, m *Memory, j *Job, recs []chunkRecord) ([]int, error) {
	prefix := chunkPrefix(j.MemoryID)
	var found []engine.IndexedChunk
	var stale []string
	err := s.store.View(ctx, func(tx engine.Tx) error {
		return tx.Scan(prefix+versionPrefix(j.Version), "", func(key string, b []byte) error {
			id := strings.TrimPrefix(key, prefix)
			var r chunkRecord
			n, err := strconv.Atoi(strings.TrimPrefix(id, versionPrefix(j.Version)))
			if err != nil || n < 0 || n >= len(recs) || json.Unmarshal(b, &r) != nil || r != recs[n] {
				stale = append(stale, id)
				return nil
			}
			found = append(found, engine.IndexedChunk{ID: id, Text: r.Text})
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	// This also loads the memory's index before the job writes any chunk
	// record: the index's first load checks its keyword side against the
	// stored chunk texts, and must not count chunks it was never given.
	ids := make([]string, len(found))
	for i, c := range found {
		ids[i] = c.ID
	}
	indexed, err := s.index.HasVectors(ctx, j.MemoryID, ids)
	if err != nil {
		return nil, err
	}
	have := make([]bool, len(recs))
	reused := 0
	for start := 0; start < len(found); start += 256 {
		batch := found[start:min(start+256, len(found))]
		if m.KeywordOnly() {
			if err := s.index.Add(ctx, j.MemoryID, batch); err != nil {
				return nil, err
			}
		}
		for i, c := range batch {
			if m.KeywordOnly() || indexed[start+i] {
				n, _ := strconv.Atoi(strings.TrimPrefix(c.ID, versionPrefix(j.Version)))
				have[n] = true
				reused++
			}
		}
	}
	if len(stale) > 0 {
		if err := s.index.Remove(ctx, j.MemoryID, stale); err != nil {
			return nil, err
		}
		if err := s.deleteKeys(ctx, j.MemoryID, stale); err != nil {
			return nil, err
		}
	}
	todo := make([]int, 0, len(recs)-reused)
	for i, ok := range have {
		if !ok {
			todo = append(todo, i)
		}
	}
	if reused > 0 {
		s.log.Info("resuming document", "memory", j.Memory, "document", j.Document, "reused_chunks", reused, "to_embed", len(todo))
	}
	return todo, nil
}

// writeChunks stores chunk records (text and document name) in bounded
// transactions. Their vectors are stored by the index only.
func (s *Service) writeChunks(ctx context.Context, memID, doc string, batch []engine.IndexedChunk) error {
	recs := make([]chunkRecord, len(batch))
	for i, c := range batch {
		recs[i] = chunkRecord{Doc: doc, Text: c.Text}
	}
	return s.writeChunkRecords(ctx, memID, batch, recs)
}

// writeChunkRecords stores recs[i] as the record of batch[i].
func (s *Service) writeChunkRecords(ctx context.Context, memID string, batch []engine.IndexedChunk, recs []chunkRecord) error {
	for len(batch) > 0 {
		n := 0
		err := s.update(ctx, func(tx engine.Tx) error {
			size := 0
			for n = 0; n < len(batch) && size < txnMaxBytes && n < txnMaxOps; n++ {
				r := &recs[n]
				if err := tx.Put(chunkKey(memID, batch[n].ID), r); err != nil {
					return err
				}
				size += len(r.Text) + len(r.Doc) + len(r.Heading) + len(r.Parent) + 64
			}
			return nil
		})
		if err != nil {
			return err
		}
		batch, recs = batch[n:], recs[n:]
	}
	return nil
}

// startIngest checks that the job is still current and marks its document
// in progress.
func (s *Service) startIngest(ctx context.Context, j *Job) (*Memory, *Document, error) {
	var m Memory
	var d *Document
	err := s.update(ctx, func(tx engine.Tx) error {
		var err error
		if d, err = currentDoc(tx, j, &m); err != nil {
			return err
		}
		if d.Status == StatusInProgress {
			return nil
		}
		d.Status, d.StatusMessage, d.UpdatedAt = StatusInProgress, "", s.now().UTC()
		return tx.Put(docKey(j.MemoryID, j.Document), d)
	})
	if err != nil {
		return nil, nil, err
	}
	return &m, d, nil
}

// currentDoc loads the job's memory and document and returns errObsolete
// unless the job's version is still the document's latest upload.
func currentDoc(tx engine.Tx, j *Job, m *Memory) (*Document, error) {
	if err := tx.Get(memoryKey(j.Owner, j.Memory), m); err != nil {
		if engine.IsNotFound(err) {
			return nil, errObsolete
		}
		return nil, err
	}
	if m.ID != j.MemoryID {
		return nil, errObsolete
	}
	var d Document
	if err := tx.Get(docKey(j.MemoryID, j.Document), &d); err != nil {
		if engine.IsNotFound(err) {
			return nil, errObsolete
		}
		return nil, err
	}
	if d.Current.ID != j.Version {
		return nil, errObsolete
	}
	return &d, nil
}

// dropObsolete removes what a superseded version left and ends its job.
// When the whole memory is gone, its drop is run again instead: writes this
// job made after the memory's drop would otherwise be left behind. The live
// version of a document is never touched here.
func (s *Service) dropObsolete(ctx context.Context, j *Job) error {
	var live, memoryGone bool
	err := s.store.View(ctx, func(tx engine.Tx) error {
		var m Memory
		err := tx.Get(memoryKey(j.Owner, j.Memory), &m)
		if engine.IsNotFound(err) || (err == nil && m.ID != j.MemoryID) {
			memoryGone = true
			return nil
		}
		if err != nil {
			return err
		}
		var d Document
		err = tx.Get(docKey(j.MemoryID, j.Document), &d)
		if err == nil && d.Live != nil && d.Live.ID == j.Version {
			live = true
		}
		if engine.IsNotFound(err) {
			return nil
		}
		return err
	})
	switch {
	case err != nil:
		return err
	case memoryGone:
		err = s.dropMemory(ctx, j.Owner, j.MemoryID)
	case !live:
		err = s.purgeVersion(ctx, j.MemoryID, j.Version, j.Blob, false)
	}
	if err != nil {
		return err
	}
	return s.deleteJob(ctx, j.ID)
}

// completeIngest makes the version live in one transaction that also ends
// the job and queues the purge of the version it replaces; the purge then
// runs at once.
func (s *Service) completeIngest(ctx context.Context, j *Job, chunks int, chunkBytes int64) error {
	var purge *Job
	err := s.update(ctx, func(tx engine.Tx) error {
		purge = nil
		var m Memory
		d, err := currentDoc(tx, j, &m)
		if err != nil {
			return err
		}
		old := d.Live
		if err := s.quotas.ChargeTx(tx, j.Owner, 0, chunkBytes-old.StoredChunkBytes()); err != nil {
			return err
		}
		d.Current.Chunks, d.Current.ChunkBytes = chunks, chunkBytes
		live := d.Current
		d.Live = &live
		d.Status, d.StatusMessage, d.UpdatedAt = StatusCompleted, "", s.now().UTC()
		if err := tx.Put(docKey(j.MemoryID, j.Document), d); err != nil {
			return err
		}
		if old != nil && old.ID != live.ID {
			purge = s.newJob(JobPurge, &m, j.Document, old)
			if err := putJob(tx, purge); err != nil {
				return err
			}
		}
		if err := s.publishDocs(tx, j.MemoryID); err != nil {
			return err
		}
		return tx.Delete(jobKey(j.ID))
	})
	if errors.Is(err, errObsolete) {
		return s.dropObsolete(ctx, j)
	}
	if err != nil {
		return err
	}
	s.docsets.invalidate(j.MemoryID)
	s.jobOutcome(j, "completed")
	if purge != nil {
		s.ingest.runInline(ctx, purge)
	}
	return nil
}

// failIngest marks the job's document failed with a message and ends the
// job. The version's blob and any chunks it already has stay, so a retry
// starts where this attempt stopped; the previous live version, if any,
// stays searchable.
func (s *Service) failIngest(ctx context.Context, j *Job, msg string) error {
	s.log.Warn("document failed", "memory", j.Memory, "document", j.Document, "reason", msg)
	failedDocument(ctx, msg)
	err := s.update(ctx, func(tx engine.Tx) error {
		var m Memory
		d, err := currentDoc(tx, j, &m)
		if err != nil {
			return err
		}
		d.Status, d.StatusMessage, d.UpdatedAt = StatusFailed, msg, s.now().UTC()
		if d.Live != nil {
			d.StatusMessage += " (the previous version stays searchable)"
		}
		if err := tx.Put(docKey(j.MemoryID, j.Document), d); err != nil {
			return err
		}
		return tx.Delete(jobKey(j.ID))
	})
	if errors.Is(err, errObsolete) {
		return s.dropObsolete(ctx, j)
	}
	if err == nil {
		s.jobOutcome(j, "failed")
	}
	return err
}
