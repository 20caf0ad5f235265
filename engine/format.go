package engine

import (
	"context"
	"time"
)

// DataFormat is the version of the record layout this binary reads and
// writes. Raise it when a release changes stored records in a way an
// older binary would misread, and add the migration to CheckDataFormat.
const DataFormat = 1

// formatRecord is stored under meta/format.
type formatRecord struct {
	Format    int       `json:"format"`
	WrittenBy string    `json:"written_by"`
	UpdatedAt time.Time `json:"updated_at"`
}

const keyFormat = prefixMeta + "format"

// CheckDataFormat runs at start, before the server serves. An unmarked
// data dir (new, or written before the marker existed) is marked with
// DataFormat; an older format is migrated and marked; a newer one, written
// by a later Hearth, is refused, so a downgrade cannot misread it. version
// is the running binary's version, recorded for operators.
func CheckDataFormat(ctx context.Context, store Store, version string) error {
	return store.Update(ctx, func(tx Tx) error {
		var rec formatRecord
		err := tx.Get(keyFormat, &rec)
		switch {
		case IsNotFound(err):
		case err != nil:
			return err
		case rec.Format > DataFormat:
			return Errorf(CodeConflict, "the data dir uses format %d, written by Hearth %s; this binary (%s) reads format %d at most: "+
				"run a newer Hearth, or restore a backup taken before the upgrade", rec.Format, rec.WrittenBy, version, DataFormat)
		case rec.Format == DataFormat && rec.WrittenBy == version:
			return nil
		}
		// Migrations from rec.Format to DataFormat go here, in this transaction
		// when they are small, or as resumable jobs when they are not.
		return tx.Put(keyFormat, formatRecord{Format: DataFormat, WrittenBy: version, UpdatedAt: time.Now().UTC()})
	})
}
