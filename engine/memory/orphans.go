package memory

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// Uploaded bytes are stored (PutBlob) before the transaction that records
// the document version, and deleted after the records that name them are
// gone, so a crash in between leaves a blob that no record references: an
// upload that was never recorded, or a version whose purge was given up.
// sweepBlobs finds and deletes such orphans, on Open and hourly, on one node
// at a time (sweep, lease.go).
//
// A blob that no record references yet may be an upload in progress, so
// only blobs older than the upload lifetime (UploadTTL) are deleted. The
// age is in the version id: "t" + the upload's time in milliseconds (11 hex
// digits) + 12 random characters. Versions of older releases ("v" + 16
// random characters) carry no time; those were all written before this
// process started, so an unreferenced one is an orphan whatever its age.

func newVersionID(now time.Time) string {
	return fmt.Sprintf("t%011x%s", now.UnixMilli(), engine.RandomString(12))
}

// versionTime returns the upload time of a version id, or ok false for
// versions without one.
func versionTime(version string) (t time.Time, ok bool) {
	if len(version) != 24 || version[0] != 't' {
		return time.Time{}, false
	}
	ms, err := strconv.ParseInt(version[1:12], 16, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.UnixMilli(ms), true
}

// memoryBlobID matches the ids of the blobs this package writes:
// "<memory id>/<version>" (see blobID). Other blobs are never swept.
var memoryBlobID = regexp.MustCompile(`^m[A-Za-z0-9]{20}/[tv][A-Za-z0-9]+$`)

// sweepBlobs deletes the memory blobs that no document or job references
// and that are older than the upload lifetime. It returns how many it
// deleted.
func (s *Service) sweepBlobs(ctx context.Context) (int, error) {
	cutoff := s.now().Add(-s.cfg.UploadTTL)
	ids, err := s.blobIDs(ctx)
	if err != nil {
		return 0, err
	}
	var old []string
	for _, id := range ids {
		if !memoryBlobID.MatchString(id) {
			continue
		}
		_, version, _ := strings.Cut(id, "/")
		if t, ok := versionTime(version); !ok || t.Before(cutoff) {
			old = append(old, id)
		}
	}
	if len(old) == 0 {
		return 0, nil
	}
	// The references are read after the listing: a blob that was old and
	// unreferenced then cannot gain a reference later (uploads record new
	// blobs, retries reuse referenced ones).
	used := map[string]bool{}
	err = s.store.View(ctx, func(tx engine.Tx) error {
		err := engine.ScanJSON(tx, "doc/", func(d *Document) error {
			used[d.Current.Blob] = true
			if d.Live != nil {
				used[d.Live.Blob] = true
			}
			return nil
		})
		if err != nil {
			return err
		}
		return engine.ScanJSON(tx, jobPrefix, func(j *Job) error {
			used[j.Blob] = true
			return nil
		})
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range old {
		if used[id] {
			continue
		}
		if err := s.store.DeleteBlob(ctx, id); err != nil {
			return n, err
		}
		n++
		s.log.Info("deleted an orphaned upload", "blob", id)
	}
	return n, nil
}

// blobIDs lists the ids of the stored blobs through the store's
// engine.BlobLister (Badger lists its blob keys, PostgreSQL its blob
// table); a store that cannot list blobs has none to sweep.
func (s *Service) blobIDs(ctx context.Context) ([]string, error) {
	l, ok := s.store.(engine.BlobLister)
	if !ok {
		return nil, nil
	}
	var ids []string
	err := l.ListBlobs(ctx, "", func(id string) error {
		ids = append(ids, id)
		return nil
	})
	return ids, err
}
