package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrSchemaTooNew is returned by Open when the database was migrated by a
// newer Hearth than this binary: running it could corrupt data the newer
// version wrote, so it refuses to start.
var ErrSchemaTooNew = errors.New("database schema is newer than this hearth binary")

// migrateLock is the key of the session advisory lock held while migrations
// run, so nodes starting together migrate one at a time ("hearth" in ASCII
// in the high bytes).
const migrateLock int64 = 0x6865617274680001

// migrations are the schema versions in order: migrations[i] brings the
// schema to version i+1. Never edit a released entry; append a new one.
var migrations = [][]string{
	// 1: records, blobs.
	{
		`CREATE TABLE hearth_kv (
			k bytea PRIMARY KEY,
			v bytea NOT NULL
		)`,
		`CREATE TABLE hearth_blobs (
			id text PRIMARY KEY,
			gen bigint NOT NULL,
			size bigint NOT NULL,
			parts integer NOT NULL
		)`,
		`CREATE TABLE hearth_blob_parts (
			id text NOT NULL,
			gen bigint NOT NULL,
			n integer NOT NULL,
			data bytea NOT NULL,
			created_at timestamptz NOT NULL DEFAULT now(),
			PRIMARY KEY (id, gen, n)
		)`,
		// Parts are zstd already: store them out of line, uncompressed.
		`ALTER TABLE hearth_blob_parts ALTER COLUMN data SET STORAGE EXTERNAL`,
	},
	// 2: the change feed (feed.go).
	{
		`CREATE TABLE hearth_changes (
			xid bigint NOT NULL,
			seq bigint GENERATED ALWAYS AS IDENTITY,
			topic text NOT NULL,
			key bytea NOT NULL,
			at timestamptz NOT NULL DEFAULT now(),
			PRIMARY KEY (xid, seq)
		)`,
	},
	// 3: the cluster's window counters (cluster_count.go) and the feed's
	// trim by age.
	{
		`CREATE TABLE hearth_counters (
			key text NOT NULL,
			window_start bigint NOT NULL,
			n bigint NOT NULL,
			expires_at timestamptz NOT NULL,
			PRIMARY KEY (key, window_start)
		)`,
		`CREATE INDEX hearth_counters_expires ON hearth_counters (expires_at)`,
		`CREATE INDEX hearth_changes_at ON hearth_changes (at)`,
	},
}

// SchemaVersion is the schema version this binary writes.
var SchemaVersion = len(migrations)

// migrate applies the missing migrations, each in its own transaction,
// under a session advisory lock; hearth_schema records each version applied.
func migrate(ctx context.Context, pool *pgxpool.Pool, steps [][]string) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrateLock); err != nil {
		return fmt.Errorf("migrate: take the migration lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrateLock)
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS hearth_schema (
		version integer PRIMARY KEY,
		applied_at timestamptz NOT NULL DEFAULT now()
	)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	var have int
	if err := conn.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM hearth_schema`).Scan(&have); err != nil {
		return fmt.Errorf("migrate: read the schema version: %w", err)
	}
	if have > len(steps) {
		return fmt.Errorf("%w: the database is at schema version %d, this binary knows up to %d; run the newer hearth that migrated it (downgrades are not supported)", ErrSchemaTooNew, have, len(steps))
	}
	for v := have + 1; v <= len(steps); v++ {
		tx, err := conn.Begin(ctx)
		if err != nil {
			return fmt.Errorf("migrate to version %d: %w", v, err)
		}
		for _, stmt := range steps[v-1] {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				tx.Rollback(ctx)
				return fmt.Errorf("migrate to version %d: %w", v, err)
			}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO hearth_schema (version) VALUES ($1)`, v); err != nil {
			tx.Rollback(ctx)
			return fmt.Errorf("migrate to version %d: %w", v, err)
		}
		if err := tx.Commit(ctx); err != nil {
			return fmt.Errorf("migrate to version %d: %w", v, err)
		}
	}
	return nil
}
