package engine

import (
	"context"
	"fmt"
)

// Quotas keep per-owner storage usage (documents and their bytes) and
// enforce the operator's limits (HEARTH_QUOTA_MAX_DOCUMENTS,
// HEARTH_QUOTA_MAX_BYTES; 0 = no limit). Usage is always kept, limits or
// not, so turning a limit on later starts from true numbers. The bytes of
// a document are those of its newest upload plus the chunk texts of its
// live version (chunk overlap stores text more than once); vectors and
// index structures are not counted (docs/security.md#parser-and-chunker-limits).
//
// Usage lives in the store, updated in the transactions that change the
// documents, so several Hearth nodes sharing one database share the same
// numbers; CheckUpload and CheckBytes are read-only early refusals and two
// nodes may both pass them, but ChargeTx re-checks inside each write.
//
// The memory engine calls CheckUpload before it hands out an upload URL
// (a fast, read-only refusal), and ChargeTx inside the transaction that
// adds, replaces or deletes a document, so usage never drifts from the
// records. A nil *Quotas keeps nothing and allows everything.
//
// Key schema: usage/<owner> -> StorageUsage.
type Quotas struct {
	store        Store
	maxDocuments int64
	maxBytes     int64
}

// StorageUsage is what an owner stores.
type StorageUsage struct {
	Documents int64 `json:"documents"`
	Bytes     int64 `json:"bytes"`
}

const prefixUsage = "usage/"

// NewQuotas returns the quota service; a limit of 0 means none.
func NewQuotas(store Store, maxDocuments, maxBytes int64) *Quotas {
	return &Quotas{store: store, maxDocuments: maxDocuments, maxBytes: maxBytes}
}

// CheckUpload refuses, with USAGE_EXCEEDED (403), an upload that would take
// the owner past a limit: one more document of addBytes bytes (addBytes
// may be 0 when the size is not known yet).
func (q *Quotas) CheckUpload(ctx context.Context, owner string, addBytes int64) error {
	if q == nil || (q.maxDocuments <= 0 && q.maxBytes <= 0) {
		return nil
	}
	return q.store.View(ctx, func(tx Tx) error {
		u, err := q.usageTx(tx, owner)
		if err != nil {
			return err
		}
		return q.check(u, 1, max(addBytes, 1))
	})
}

// CheckBytes refuses, with USAGE_EXCEEDED, addBytes more bytes (an upload
// that replaces a document, so the document count does not grow, or the
// chunks of a document about to be indexed); with addBytes 0 it refuses
// when the owner is already at the byte limit.
func (q *Quotas) CheckBytes(ctx context.Context, owner string, addBytes int64) error {
	if q == nil || q.maxBytes <= 0 {
		return nil
	}
	return q.store.View(ctx, func(tx Tx) error {
		u, err := q.usageTx(tx, owner)
		if err != nil {
			return err
		}
		return q.check(u, 0, max(addBytes, 1))
	})
}

// ChargeTx adds a change of documents and bytes (negative on delete) to
// the owner's usage inside the caller's transaction. An increase past a
// limit fails with USAGE_EXCEEDED and the caller's transaction must be
// abandoned; a decrease always succeeds and never goes below zero.
func (q *Quotas) ChargeTx(tx Tx, owner string, documents, bytes int64) error {
	if q == nil || (documents == 0 && bytes == 0) {
		return nil
	}
	u, err := q.usageTx(tx, owner)
	if err != nil {
		return err
	}
	if err := q.check(u, max(documents, 0), max(bytes, 0)); err != nil {
		return err
	}
	u.Documents = max(u.Documents+documents, 0)
	u.Bytes = max(u.Bytes+bytes, 0)
	if u == (StorageUsage{}) {
		return tx.Delete(prefixUsage + owner)
	}
	return tx.Put(prefixUsage+owner, u)
}

// Usage returns what an owner stores.
func (q *Quotas) Usage(ctx context.Context, owner string) (StorageUsage, error) {
	var u StorageUsage
	if q == nil {
		return u, nil
	}
	err := q.store.View(ctx, func(tx Tx) error {
		var err error
		u, err = q.usageTx(tx, owner)
		return err
	})
	return u, err
}

// Limits returns the configured limits (0 = none).
func (q *Quotas) Limits() (maxDocuments, maxBytes int64) {
	if q == nil {
		return 0, 0
	}
	return q.maxDocuments, q.maxBytes
}

func (q *Quotas) usageTx(tx Tx, owner string) (StorageUsage, error) {
	var u StorageUsage
	err := tx.Get(prefixUsage+owner, &u)
	if IsNotFound(err) {
		err = nil
	}
	return u, err
}

func (q *Quotas) check(u StorageUsage, addDocs, addBytes int64) error {
	if q.maxDocuments > 0 && addDocs > 0 && u.Documents+addDocs > q.maxDocuments {
		return Errorf(CodeUsageExceeded, "document quota reached: %d of %d documents stored; delete some before uploading more", u.Documents, q.maxDocuments)
	}
	if q.maxBytes > 0 && addBytes > 0 && u.Bytes+addBytes > q.maxBytes {
		return Errorf(CodeUsageExceeded, "storage quota exceeded: %s stored plus %s would pass the limit of %s", byteSize(u.Bytes), byteSize(addBytes), byteSize(q.maxBytes))
	}
	return nil
}

// byteSize renders a byte count for messages (1.5 MiB).
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
