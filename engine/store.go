package engine

import (
	"context"
	"io"
)

// Store is the transactional record store (implemented by blob/ over Badger).
// Records are JSON documents under string keys; the key schema lives in
// engine/keys.go. Keys sort bytewise, so Scan visits them in key order.
type Store interface {
	// View runs fn in a read-only snapshot.
	View(ctx context.Context, fn func(tx Tx) error) error
	// Update runs fn in a read-write transaction and commits it when fn
	// returns nil; nothing is written when fn or the commit fails.
	Update(ctx context.Context, fn func(tx Tx) error) error

	// PutBlob stores large bytes (document uploads) compressed, outside any
	// transaction, under id. A blob is invisible to users until a record that
	// names it is committed, so a crash mid-write leaves only an orphan.
	PutBlob(ctx context.Context, id string, r io.Reader) (size int64, err error)
	// GetBlob returns the bytes stored under id, or ErrNotFound.
	GetBlob(ctx context.Context, id string) ([]byte, error)
	// DeleteBlob removes a blob; a missing blob is not an error.
	DeleteBlob(ctx context.Context, id string) error

	Close() error
}

// Tx is one transaction. Get returns ErrNotFound for a missing key.
type Tx interface {
	Get(key string, v any) error
	Put(key string, v any) error
	// GetRaw and PutRaw store bytes as-is (vectors, snapshots).
	GetRaw(key string) ([]byte, error)
	PutRaw(key string, b []byte) error
	Delete(key string) error
	// Exists reports whether key is present.
	Exists(key string) (bool, error)
	// Scan calls fn for every key with the prefix, in key order, starting
	// after `after` when it is non-empty. Returning ErrStopScan ends the scan
	// without error. The value slice is only valid during the call.
	Scan(prefix, after string, fn func(key string, value []byte) error) error
}

// ErrStopScan ends a Scan early without error.
var ErrStopScan = &Error{Code: "STOP_SCAN", Message: "stop scan"}

// BlobLister is implemented by stores that can list their blobs. The
// orphaned-upload sweep of the memory engine uses it: a store may keep
// blobs outside its key space (PostgreSQL keeps them in their own tables),
// so scanning keys cannot find them.
type BlobLister interface {
	// ListBlobs calls fn with the id of every blob whose id sorts after
	// after (all when after is ""), in bytewise id order. Returning
	// ErrStopScan from fn ends the listing without error.
	ListBlobs(ctx context.Context, after string, fn func(id string) error) error
}
