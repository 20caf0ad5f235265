package blob

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/dgraph-io/badger/v4"
	"github.com/hearth-dev/hearth/engine"
)

// Blob key schema: "blob/<id>/meta" holds {size, parts}; "blob/<id>/p/<%08d>"
// holds each zstd-compressed part of at most partSize (512 KiB) raw bytes. Parts are
// written in their own small transactions (Badger caps transaction size) and
// the meta record last, so a blob without meta is an incomplete write.
const partSize = 512 << 10

type blobMeta struct {
	Size  int64 `json:"size"`
	Parts int   `json:"parts"`
}

func blobPrefix(id string) string         { return "blob/" + id + "/" }
func blobMetaKey(id string) string        { return "blob/" + id + "/meta" }
func blobPartKey(id string, n int) string { return fmt.Sprintf("blob/%s/p/%08d", id, n) }

// PutBlob stores r under id, replacing any previous blob with that id.
func (s *Store) PutBlob(ctx context.Context, id string, r io.Reader) (int64, error) {
	if err := s.DeleteBlob(ctx, id); err != nil {
		return 0, err
	}
	buf := make([]byte, partSize)
	var size int64
	parts := 0
	for {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		n, rerr := io.ReadFull(r, buf)
		if n > 0 {
			comp := s.enc.EncodeAll(buf[:n], nil)
			key := blobPartKey(id, parts)
			if err := s.db.Update(func(txn *badger.Txn) error { return txn.Set([]byte(key), comp) }); err != nil {
				return 0, mapErr(err)
			}
			parts++
			size += int64(n)
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			return 0, rerr
		}
	}
	meta, _ := json.Marshal(blobMeta{Size: size, Parts: parts})
	if err := s.db.Update(func(txn *badger.Txn) error { return txn.Set([]byte(blobMetaKey(id)), meta) }); err != nil {
		return 0, mapErr(err)
	}
	return size, nil
}

// GetBlob returns the bytes of a complete blob.
func (s *Store) GetBlob(ctx context.Context, id string) ([]byte, error) {
	var out []byte
	err := s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get([]byte(blobMetaKey(id)))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return engine.ErrNotFound
		}
		if err != nil {
			return err
		}
		var m blobMeta
		if err := item.Value(func(b []byte) error { return json.Unmarshal(b, &m) }); err != nil {
			return err
		}
		out = make([]byte, 0, m.Size)
		for i := 0; i < m.Parts; i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			pi, err := txn.Get([]byte(blobPartKey(id, i)))
			if err != nil {
				return fmt.Errorf("blob %s part %d: %w", id, i, err)
			}
			if err := pi.Value(func(b []byte) error {
				var derr error
				out, derr = s.dec.DecodeAll(b, out)
				return derr
			}); err != nil {
				return fmt.Errorf("blob %s part %d: %w", id, i, err)
			}
		}
		if int64(len(out)) != m.Size {
			return fmt.Errorf("blob %s: size %d, want %d", id, len(out), m.Size)
		}
		return nil
	})
	return out, err
}

// DeleteBlob removes every key of a blob, meta first so a half-deleted blob
// is never read as complete.
func (s *Store) DeleteBlob(ctx context.Context, id string) error {
	if err := s.db.Update(func(txn *badger.Txn) error { return txn.Delete([]byte(blobMetaKey(id))) }); err != nil {
		return mapErr(err)
	}
	var keys [][]byte
	err := s.db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.PrefetchValues = false
		opts.Prefix = []byte(blobPrefix(id))
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			keys = append(keys, it.Item().KeyCopy(nil))
		}
		return nil
	})
	if err != nil {
		return err
	}
	wb := s.db.NewWriteBatch()
	defer wb.Cancel()
	for _, k := range keys {
		if err := wb.Delete(k); err != nil {
			return mapErr(err)
		}
	}
	return mapErr(wb.Flush())
}

// ListBlobs implements engine.BlobLister: it calls fn with the id of every
// blob after after, complete (with its meta record) or not (parts only, a
// write cut short, which DeleteBlob removes too), in id order. It reads one
// key per blob: after the first key of a blob it seeks past the others.
func (s *Store) ListBlobs(ctx context.Context, after string, fn func(id string) error) error {
	const prefix = "blob/"
	return s.db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.PrefetchValues = false
		opts.Prefix = []byte(prefix)
		it := txn.NewIterator(opts)
		defer it.Close()
		seek := prefix
		if after != "" {
			seek = prefix + after + "/\xff"
		}
		for it.Seek([]byte(seek)); it.Valid(); {
			if err := ctx.Err(); err != nil {
				return err
			}
			key := string(it.Item().Key())
			rest := key[len(prefix):]
			id, ok := strings.CutSuffix(rest, "/meta")
			if !ok {
				i := strings.Index(rest, "/p/")
				if i < 0 { // not a blob key: step over it
					it.Next()
					continue
				}
				id = rest[:i]
			}
			if err := fn(id); err != nil {
				if errors.Is(err, engine.ErrStopScan) {
					return nil
				}
				return err
			}
			it.Seek([]byte(prefix + id + "/\xff"))
		}
		return nil
	})
}
