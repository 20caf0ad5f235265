package memory

import (
	"context"
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hearth-dev/hearth/engine"
)

// ImportOptions are the choices of a pack import (docs/memories-and-retrieval.md#memory-packs).
type ImportOptions struct {
	// Name, when set, imports the memory under this name instead of the
	// pack's.
	Name string
	// Replace lets the import replace an existing memory of that name,
	// which must use the same embedding model and vector dimension; without
	// it an existing name is a CONFLICT.
	Replace bool
	// Authorize, when set, is asked about the memory name before anything
	// is written (scoped keys).
	Authorize func(name string) error
}

// ImportResult describes an imported memory.
type ImportResult struct {
	Memory    *Memory
	Documents int
	Chunks    int
	// Replaced says an existing memory of the name was replaced.
	Replaced bool
}

// importGuard is how long after its last sign of life an import's staged
// data is left alone; the durable drop job that removes what a crashed or
// killed import wrote becomes due after it. Imports push it on while they
// run, so any node may run the job once the import is dead.
const importGuard = time.Hour

// importBatch bounds the chunks written (records and index) at once.
const importBatch = 256

var packVersionID = regexp.MustCompile(`^[tv][A-Za-z0-9]{1,63}$`)

// Import reads a pack from r and creates the memory it holds, with its
// documents, chunks and vectors as they are: nothing is embedded, and
// retrieval gives the results it gave where the pack was made.
//
// Everything is written under a new memory id that no memory record names
// yet, so searches and listings do not see it; the memory appears in the
// one transaction that stores its record, after the pack's checksum was
// verified. A pack that fails (corrupt, truncated, refused) has what it
// wrote removed at once, and a durable drop job, due importGuard after the
// import last made progress, removes it after a crash. Usage is charged
// document by document, so a quota stops an import that would exceed it.
func (s *Service) Import(ctx context.Context, owner string, r io.Reader, opts ImportOptions) (*ImportResult, error) {
	pr, err := newPackReader(r)
	if err != nil {
		return nil, err
	}
	defer pr.close()
	h, err := pr.header()
	if err != nil {
		return nil, err
	}
	name := opts.Name
	field := "name"
	if name == "" {
		name, field = h.Memory.Name, "pack.memory.name"
	}
	if err := ValidateMemoryName(field, name); err != nil {
		return nil, err
	}
	if opts.Authorize != nil {
		if err := opts.Authorize(name); err != nil {
			return nil, err
		}
	}
	pm := &h.Memory
	m, err := s.newMemory(ctx, owner, CreateRequest{Name: name, Description: pm.Description, EmbeddingModel: pm.EmbeddingModel,
		ChunkSize: &pm.ChunkSize, ChunkOverlap: &pm.ChunkOverlap, TopK: &pm.TopK, Rerank: pm.Rerank, Chunking: pm.Chunking})
	if err != nil {
		return nil, err
	}
	if m.KeywordOnly() && h.Dimension != 0 {
		return nil, packError("the header's dimension %d does not fit embedding model %s", h.Dimension, m.EmbeddingModel)
	}
	old, err := s.checkReplace(ctx, owner, m, h.Dimension, opts.Replace)
	if err != nil {
		return nil, err
	}
	im := &importer{s: s, m: m, h: h, pr: pr, versions: map[string]bool{}, names: map[string]bool{}}
	if err := im.start(ctx); err != nil {
		return nil, err
	}
	res, err := im.run(ctx)
	if err == nil {
		res, err = s.flipImport(ctx, im, old)
	}
	if err != nil {
		im.abort(context.WithoutCancel(ctx))
		return nil, err
	}
	return res, nil
}

// importer writes one pack's memory under its staging id (m.ID). Its
// bookkeeping (names and versions seen, the guard job's last push) lives
// in the one request that imports; everything it writes is in the store,
// so with several nodes on one database any node serves an import, the
// others see the memory when its record appears, and any node runs the
// guard job of an import whose node died.
type importer struct {
	s        *Service
	m        *Memory
	h        *PackHeader
	pr       *packReader
	guard    *Job
	touched  time.Time
	versions map[string]bool
	names    map[string]bool
	docs     int
	chunks   int
}

// start stores the guard job and loads the staging memory's index before
// any chunk record exists (the index's first load checks its keyword side
// against the stored chunk texts).
func (im *importer) start(ctx context.Context) error {
	s := im.s
	im.guard = s.newJob(JobDrop, im.m, "", nil)
	im.touched = s.now()
	im.guard.NotBefore = im.touched.Add(importGuard).UTC()
	if err := s.update(ctx, func(tx engine.Tx) error { return putJob(tx, im.guard) }); err != nil {
		return err
	}
	_, err := s.index.HasVectors(ctx, im.m.ID, nil)
	return err
}

// alive pushes the guard job's due time on, at most every few minutes.
func (im *importer) alive(ctx context.Context) error {
	now := im.s.now()
	if now.Sub(im.touched) < importGuard/8 {
		return nil
	}
	im.touched = now
	return im.s.update(ctx, func(tx engine.Tx) error {
		var j Job
		if err := tx.Get(jobKey(im.guard.ID), &j); err != nil {
			return err
		}
		j.NotBefore = now.Add(importGuard).UTC()
		return putJob(tx, &j)
	})
}

// abort removes what the import wrote, then its guard job; when that
// fails, the guard job does it later.
func (im *importer) abort(ctx context.Context) {
	s := im.s
	if err := s.dropMemory(ctx, im.m.Owner, im.m.ID); err != nil {
		s.log.Error("cannot remove a failed import; its drop job will", "memory", im.m.Name, "err", err)
		return
	}
	if err := s.deleteJob(ctx, im.guard.ID); err != nil {
		s.log.Error("cannot delete the drop job of a failed import", "memory", im.m.Name, "err", err)
	}
}

// run reads the records after the header up to the end record.
func (im *importer) run(ctx context.Context) (*ImportResult, error) {
	kind, body, err := im.pr.next()
	for err == nil && kind == recDoc {
		var pd packDoc
		if jerr := json.Unmarshal(body, &pd); jerr != nil {
			return nil, packError("a document record is malformed: %v", jerr)
		}
		if err = im.doc(ctx, &pd); err != nil {
			return nil, err
		}
		kind, body, err = im.pr.next()
	}
	if err != nil {
		return nil, err
	}
	if kind != recEnd {
		return nil, packError("unexpected record %q where a document or the end was expected: the pack is corrupt", kind)
	}
	if im.docs != im.h.Documents {
		return nil, packError("the pack holds %d documents; its header says %d", im.docs, im.h.Documents)
	}
	return &ImportResult{Documents: im.docs, Chunks: im.chunks}, nil
}

// doc imports one document: its file, its chunks with their vectors, then
// its record, which charges its usage.
func (im *importer) doc(ctx context.Context, pd *packDoc) error {
	s := im.s
	if err := ValidateDocumentName("pack.documents.name", pd.Name); err != nil {
		return err
	}
	if im.names[pd.Name] {
		return packError("document %q appears twice", pd.Name)
	}
	im.names[pd.Name] = true
	if !packVersionID.MatchString(pd.Version) || im.versions[pd.Version] {
		return packError("document %q has an invalid or repeated version id %q", pd.Name, pd.Version)
	}
	im.versions[pd.Version] = true
	if err := ValidateMeta("pack.documents.meta", pd.Meta); err != nil {
		return err
	}
	now := s.now().UTC()
	v := Version{ID: pd.Version, Size: pd.Size, ContentType: pd.ContentType, Meta: pd.Meta, Chunking: pd.Chunking, UploadedAt: pd.UploadedAt}
	if pd.File {
		// A fresh blob id: the orphan sweep leaves blobs this young alone
		// until the document record that names it is written.
		v.Blob = blobID(im.m.ID, newVersionID(now))
		fr := &fileReader{r: im.pr}
		n, err := s.store.PutBlob(ctx, v.Blob, fr)
		if fr.err != nil {
			return fr.err
		}
		if err != nil {
			return err
		}
		if n != pd.Size {
			return packError("document %q has a file of %d bytes; its record says %d", pd.Name, n, pd.Size)
		}
	}
	var batch []engine.IndexedChunk
	var recs []chunkRecord
	last := ""
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := s.writeChunkRecords(ctx, im.m.ID, batch, recs); err != nil {
			return err
		}
		if err := s.index.Add(ctx, im.m.ID, batch); err != nil {
			return err
		}
		batch, recs = batch[:0], recs[:0]
		return im.alive(ctx)
	}
	for {
		kind, body, err := im.pr.next()
		if err != nil {
			return err
		}
		if kind != recChunk {
			im.pr.unread()
			break
		}
		c, vec, err := decodeChunk(body, im.h.Dimension)
		if err != nil {
			return err
		}
		if vec == nil && !im.m.KeywordOnly() {
			return packError("chunk %q has no vector, and embedding model %s needs one (the header's dimension is 0)", c.ID, im.m.EmbeddingModel)
		}
		n, ok := strings.CutPrefix(c.ID, versionPrefix(pd.Version))
		if !ok || n == "" || strings.Trim(n, "0123456789") != "" || c.ID <= last {
			return packError("document %q has a chunk with an invalid or out-of-order id %q", pd.Name, c.ID)
		}
		if !utf8.ValidString(c.Text) || !utf8.ValidString(c.Heading) || !utf8.ValidString(c.Parent) {
			return packError("chunk %q is not valid UTF-8", c.ID)
		}
		last = c.ID
		batch = append(batch, engine.IndexedChunk{ID: c.ID, Text: c.Text, Vector: vec})
		recs = append(recs, chunkRecord{Doc: pd.Name, Text: c.Text, Heading: c.Heading, Parent: c.Parent, ParentChunk: c.ParentChunk})
		v.Chunks++
		v.ChunkBytes += int64(len(c.Text) + len(c.Parent))
		if len(batch) >= importBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	if v.Chunks != pd.Chunks || v.Chunks == 0 {
		return packError("document %q has %d chunks; its record says %d", pd.Name, v.Chunks, pd.Chunks)
	}
	d := Document{MemoryID: im.m.ID, Name: pd.Name, Status: StatusCompleted, Current: v, Live: &v, CreatedAt: pd.CreatedAt, UpdatedAt: now}
	err := s.update(ctx, func(tx engine.Tx) error {
		if err := s.quotas.ChargeTx(tx, im.m.Owner, 1, v.Size+v.ChunkBytes); err != nil {
			return err
		}
		return tx.Put(docKey(im.m.ID, pd.Name), &d)
	})
	if err != nil {
		return err
	}
	im.docs++
	im.chunks += v.Chunks
	return nil
}
