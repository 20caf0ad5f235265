package memory

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/chunk"
	"github.com/hearth-dev/hearth/engine/parse"
)

// An upload is two steps (https://langbase.com/docs/api-reference/memory/document-upload).
// Step 1 stores a pending
// upload record (upload/<id>: owner, memory, document name, meta, expiry)
// and returns a token for the signed URL. Step 2 presents the token with
// the bytes. The token is "<id>.<expiry unix>.<signature>", where the
// signature is an HMAC-SHA256 over the id, owner, memory id and name,
// document name and expiry, so a token cannot be altered, moved to another
// document or extended. A token is used once: a successful upload consumes
// its record. Records of tokens never used are swept after they expire.

const uploadPrefix = "upload/"

func uploadKey(id string) string { return uploadPrefix + id }

type uploadRecord struct {
	ID        string            `json:"id"`
	Owner     string            `json:"owner"`
	MemoryID  string            `json:"memory_id"`
	Memory    string            `json:"memory"`
	Document  string            `json:"document"`
	Meta      map[string]string `json:"meta,omitempty"`
	Chunking  *chunk.Settings   `json:"chunking,omitempty"`
	ExpiresAt time.Time         `json:"expires_at"`
}

// UploadTicket is the answer to step 1: the token of the signed URL.
type UploadTicket struct {
	Token     string
	ExpiresAt time.Time
}

// CreateUpload validates step 1 of an upload and issues a signed token.
func (s *Service) CreateUpload(ctx context.Context, owner, memoryName, documentName string, meta map[string]string) (*UploadTicket, error) {
	return s.CreateUploadChunked(ctx, owner, memoryName, documentName, meta, nil)
}

// CreateUploadChunked is CreateUpload with chunk settings for this upload
// that override the memory's (nil: the memory's); field "chunking".
func (s *Service) CreateUploadChunked(ctx context.Context, owner, memoryName, documentName string, meta map[string]string, chunking *chunk.Settings) (*UploadTicket, error) {
	if memoryName == "" {
		return nil, engine.FieldError("memoryName", "is required")
	}
	if err := ValidateDocumentName("documentName", documentName); err != nil {
		return nil, err
	}
	if err := ValidateMeta("meta", meta); err != nil {
		return nil, err
	}
	m, err := s.Get(ctx, owner, memoryName)
	if err != nil {
		return nil, err
	}
	if chunking, err = chunking.Normalize("chunking", m.ChunkSize); err != nil {
		return nil, err
	}
	if err := s.checkQuota(ctx, owner, m.ID, documentName); err != nil {
		return nil, err
	}
	exp := s.now().Add(s.cfg.UploadTTL).UTC().Truncate(time.Second)
	rec := &uploadRecord{ID: "u" + engine.RandomString(22), Owner: owner, MemoryID: m.ID, Memory: m.Name,
		Document: documentName, Meta: meta, Chunking: chunking, ExpiresAt: exp}
	if err := s.store.Update(ctx, func(tx engine.Tx) error { return tx.Put(uploadKey(rec.ID), rec) }); err != nil {
		return nil, err
	}
	expText := strconv.FormatInt(exp.Unix(), 10)
	return &UploadTicket{Token: rec.ID + "." + expText + "." + s.sign(rec, expText), ExpiresAt: exp}, nil
}

// sign is the token's signature over the exact bytes of its expiry field
// (expText, as it appears in the token), so no other spelling of the same
// number carries a valid signature.
func (s *Service) sign(rec *uploadRecord, expText string) string {
	mac := hmac.New(sha256.New, s.cfg.UploadSecret)
	fmt.Fprintf(mac, "hearth-upload-v1\n%s\n%s\n%s\n%s\n%s\n%s", rec.ID, rec.Owner, rec.MemoryID, rec.Memory, rec.Document, expText)
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// canonicalUnix parses an expiry written as strconv.FormatInt writes it:
// decimal digits, no sign, no leading zero, no spaces.
func canonicalUnix(text string) (int64, bool) {
	exp, err := strconv.ParseInt(text, 10, 64)
	if err != nil || exp <= 0 || strconv.FormatInt(exp, 10) != text {
		return 0, false
	}
	return exp, true
}

// errBadToken is the one answer for tokens that are unknown, altered or
// already used: it does not say which, so nothing can be probed.
func errBadToken() error {
	return engine.Errorf(engine.CodeForbidden, "this upload URL is not valid: it was already used, altered, or has expired; request a new one with POST /v1/memory/documents")
}

// UploadRequest is step 2 of an upload.
type UploadRequest struct {
	Token string
	// Owner is the owner of the bearer key sent with the upload, or "" when
	// none was sent. When set it must be the owner the URL was issued to.
	Owner       string
	ContentType string
	Body        io.Reader
}

// UploadResult describes a stored upload.
type UploadResult struct {
	Memory      string
	Document    string
	Size        int64
	ContentType string
}

// CompleteUpload verifies the token, checks the content type against the
// document name, stores the bytes, and then, in one transaction, records
// the new document version (status queued) with its ingestion job and
// consumes the token. The previous version of a re-uploaded document stays
// searchable until the new one is completed. Body errors (such as the
// size limit) are returned as they are.
func (s *Service) CompleteUpload(ctx context.Context, req UploadRequest) (*UploadResult, error) {
	rec, err := s.verifyToken(ctx, req.Token)
	if err != nil {
		return nil, err
	}
	if req.Owner != "" && req.Owner != rec.Owner {
		return nil, engine.Errorf(engine.CodeForbidden, "this API key belongs to %q, but the upload URL was issued to %q", req.Owner, rec.Owner)
	}
	ct, err := parse.CheckContentType(req.ContentType, rec.Document)
	if err != nil {
		return nil, err
	}
	version := newVersionID(s.now())
	blob := blobID(rec.MemoryID, version)
	size, err := s.store.PutBlob(ctx, blob, req.Body)
	if err == nil && size == 0 {
		err = engine.FieldError("body", "the document is empty")
	}
	if err != nil {
		if derr := s.store.DeleteBlob(context.WithoutCancel(ctx), blob); derr != nil {
			s.log.Error("cannot delete a partial upload", "blob", blob, "err", derr)
		}
		return nil, err
	}
	now := s.now().UTC()
	v := Version{ID: version, Blob: blob, Size: size, ContentType: ct, Meta: rec.Meta, Chunking: rec.Chunking, UploadedAt: now}
	if v.Meta == nil {
		v.Meta = map[string]string{}
	}
	var stale *Job
	err = s.store.Update(ctx, func(tx engine.Tx) error {
		stale = nil
		var cur uploadRecord
		if err := tx.Get(uploadKey(rec.ID), &cur); err != nil {
			if engine.IsNotFound(err) {
				return errBadToken()
			}
			return err
		}
		var m Memory
		if err := tx.Get(memoryKey(rec.Owner, rec.Memory), &m); err != nil || m.ID != rec.MemoryID {
			if err == nil || engine.IsNotFound(err) {
				return engine.Errorf(engine.CodeNotFound, "memory %q was deleted after this upload URL was issued", rec.Memory)
			}
			return err
		}
		var d Document
		err := tx.Get(docKey(m.ID, rec.Document), &d)
		switch {
		case engine.IsNotFound(err):
			d = Document{MemoryID: m.ID, Name: rec.Document, CreatedAt: now}
			if err := s.quotas.ChargeTx(tx, rec.Owner, 1, size); err != nil {
				return err
			}
		case err != nil:
			return err
		case d.Live == nil || d.Live.ID != d.Current.ID:
			// The previous upload never went live: nothing needs it now.
			stale = s.newJob(JobPurge, &m, rec.Document, &d.Current)
			if err := s.enqueue(tx, stale); err != nil {
				return err
			}
		}
		if d.Current.ID != "" {
			// A replacement: usage counts each document's newest upload.
			if err := s.quotas.ChargeTx(tx, rec.Owner, 0, size-d.Current.Size); err != nil {
				return err
			}
		}
		d.Current, d.Status, d.StatusMessage, d.UpdatedAt = v, StatusQueued, "", now
		if err := tx.Put(docKey(m.ID, rec.Document), &d); err != nil {
			return err
		}
		if err := s.enqueue(tx, withTrace(ctx, s.newJob(JobIngest, &m, rec.Document, &v))); err != nil {
			return err
		}
		return tx.Delete(uploadKey(rec.ID))
	})
	if err != nil {
		if derr := s.store.DeleteBlob(context.WithoutCancel(ctx), blob); derr != nil {
			s.log.Error("cannot delete an unrecorded upload", "blob", blob, "err", derr)
		}
		return nil, err
	}
	s.ingest.poke()
	return &UploadResult{Memory: rec.Memory, Document: rec.Document, Size: size, ContentType: ct}, nil
}

// verifyToken checks a token's form, record, signature and expiry, in
// that order: the expiry is only trusted once the signature is.
func (s *Service) verifyToken(ctx context.Context, token string) (*uploadRecord, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 || parts[0] == "" || len(parts[0]) > 64 {
		return nil, errBadToken()
	}
	exp, ok := canonicalUnix(parts[1])
	if !ok {
		return nil, errBadToken()
	}
	var rec uploadRecord
	err := s.store.View(ctx, func(tx engine.Tx) error { return tx.Get(uploadKey(parts[0]), &rec) })
	if engine.IsNotFound(err) {
		return nil, errBadToken()
	}
	if err != nil {
		return nil, err
	}
	if !hmac.Equal([]byte(parts[2]), []byte(s.sign(&rec, parts[1]))) || exp != rec.ExpiresAt.Unix() {
		return nil, errBadToken()
	}
	if !s.now().Before(rec.ExpiresAt) {
		return nil, engine.Errorf(engine.CodeForbidden, "this upload URL expired at %s; request a new one with POST /v1/memory/documents", rec.ExpiresAt.Format(time.RFC3339))
	}
	return &rec, nil
}

// sweepUploads deletes the records of upload URLs that expired unused.
func (s *Service) sweepUploads(ctx context.Context) error {
	now := s.now()
	var expired []string
	err := s.store.View(ctx, func(tx engine.Tx) error {
		return engine.ScanJSON(tx, uploadPrefix, func(r *uploadRecord) error {
			if now.After(r.ExpiresAt) {
				expired = append(expired, r.ID)
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	for len(expired) > 0 {
		n := min(len(expired), txnMaxOps)
		err := s.store.Update(ctx, func(tx engine.Tx) error {
			for _, id := range expired[:n] {
				if err := tx.Delete(uploadKey(id)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		expired = expired[n:]
	}
	return nil
}

// checkQuota refuses step 1 of an upload when the owner is at a storage
// limit: the document count (unless the upload replaces a document) or
// the bytes. Step 2 charges the real size in the transaction that records
// the document.
func (s *Service) checkQuota(ctx context.Context, owner, memID, document string) error {
	if maxDocs, maxBytes := s.quotas.Limits(); maxDocs <= 0 && maxBytes <= 0 {
		return nil
	}
	var exists bool
	err := s.store.View(ctx, func(tx engine.Tx) (err error) {
		exists, err = tx.Exists(docKey(memID, document))
		return err
	})
	if err != nil {
		return err
	}
	if exists {
		return s.quotas.CheckBytes(ctx, owner, 0)
	}
	return s.quotas.CheckUpload(ctx, owner, 0)
}
