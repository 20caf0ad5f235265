package postgres

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/jackc/pgx/v5"
)

// partSize is the raw size of one blob part; each is zstd-compressed and
// stored as one bytea row, which PostgreSQL keeps out of line (TOAST).
const partSize = 1 << 20

// PutBlob stores r under id. The parts are written under a fresh
// generation number, each in its own statement, so an upload never holds a
// transaction open while it reads from the client; one last transaction
// points hearth_blobs at the new generation and deletes the previous one.
// Until then readers see the previous blob (or none); a failed or
// interrupted write leaves at most unreferenced parts, which PutBlob removes
// on failure and SweepBlobParts removes after a crash.
func (s *Store) PutBlob(ctx context.Context, id string, r io.Reader) (int64, error) {
	var g [8]byte
	rand.Read(g[:])
	gen := int64(binary.LittleEndian.Uint64(g[:]) >> 1)
	size, parts, err := s.writeParts(ctx, id, gen, r)
	if err == nil {
		err = s.publish(ctx, id, gen, size, parts)
	}
	if err != nil {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_, _ = s.pool.Exec(cctx, `DELETE FROM hearth_blob_parts WHERE id = $1 AND gen = $2`, id, gen)
		return 0, err
	}
	return size, nil
}

func (s *Store) writeParts(ctx context.Context, id string, gen int64, r io.Reader) (size int64, parts int, err error) {
	buf := make([]byte, partSize)
	for {
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
		n, rerr := io.ReadFull(r, buf)
		if n > 0 {
			comp := s.enc.EncodeAll(buf[:n], nil)
			if _, err := s.pool.Exec(ctx, `INSERT INTO hearth_blob_parts (id, gen, n, data) VALUES ($1, $2, $3, $4)`, id, gen, parts, comp); err != nil {
				return 0, 0, mapErr(err)
			}
			parts++
			size += int64(n)
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			return size, parts, nil
		}
		if rerr != nil {
			return 0, 0, rerr
		}
	}
}

func (s *Store) publish(ctx context.Context, id string, gen, size int64, parts int) error {
	return mapErr(pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var old int64
		err := tx.QueryRow(ctx, `SELECT gen FROM hearth_blobs WHERE id = $1 FOR UPDATE`, id).Scan(&old)
		replaced := err == nil
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO hearth_blobs (id, gen, size, parts) VALUES ($1, $2, $3, $4)
			ON CONFLICT (id) DO UPDATE SET gen = EXCLUDED.gen, size = EXCLUDED.size, parts = EXCLUDED.parts`, id, gen, size, parts); err != nil {
			return err
		}
		if replaced {
			_, err = tx.Exec(ctx, `DELETE FROM hearth_blob_parts WHERE id = $1 AND gen = $2`, id, old)
			return err
		}
		return nil
	}))
}

// GetBlob returns the bytes of a complete blob, read in one snapshot.
func (s *Store) GetBlob(ctx context.Context, id string) ([]byte, error) {
	ptx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, mapErr(err)
	}
	defer ptx.Rollback(context.WithoutCancel(ctx))
	var gen, size int64
	var parts int
	err = ptx.QueryRow(ctx, `SELECT gen, size, parts FROM hearth_blobs WHERE id = $1`, id).Scan(&gen, &size, &parts)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, engine.ErrNotFound
	}
	if err != nil {
		return nil, mapErr(err)
	}
	rows, err := ptx.Query(ctx, `SELECT n, data FROM hearth_blob_parts WHERE id = $1 AND gen = $2 ORDER BY n`, id, gen)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	out := make([]byte, 0, size)
	next := 0
	for rows.Next() {
		var n int
		var data []byte
		if err := rows.Scan(&n, &data); err != nil {
			return nil, mapErr(err)
		}
		if n != next {
			return nil, fmt.Errorf("blob %s: part %d missing", id, next)
		}
		if out, err = s.dec.DecodeAll(data, out); err != nil {
			return nil, fmt.Errorf("blob %s part %d: %w", id, n, err)
		}
		next++
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(err)
	}
	if next != parts || int64(len(out)) != size {
		return nil, fmt.Errorf("blob %s: %d parts, %d bytes; want %d, %d", id, next, len(out), parts, size)
	}
	return out, nil
}

// DeleteBlob removes a blob and its parts in one transaction.
func (s *Store) DeleteBlob(ctx context.Context, id string) error {
	return mapErr(pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var gen int64
		err := tx.QueryRow(ctx, `DELETE FROM hearth_blobs WHERE id = $1 RETURNING gen`, id).Scan(&gen)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM hearth_blob_parts WHERE id = $1 AND gen = $2`, id, gen)
		return err
	}))
}

// SweepBlobParts deletes parts that no blob references and that are older
// than age: the leftovers of uploads cut short by a crash (a running upload
// writes its parts within age). It returns how many parts it deleted. In
// cluster mode any node may run it; the statement is idempotent.
func (s *Store) SweepBlobParts(ctx context.Context, age time.Duration) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM hearth_blob_parts p
		WHERE p.created_at < now() - make_interval(secs => $1)
		AND NOT EXISTS (SELECT 1 FROM hearth_blobs b WHERE b.id = p.id AND b.gen = p.gen)`, age.Seconds())
	if err != nil {
		return 0, mapErr(err)
	}
	return tag.RowsAffected(), nil
}

// ListBlobs implements engine.BlobLister: the ids of the complete blobs
// after after, in bytewise order (COLLATE "C", whatever the database's
// collation), a page of 1000 per statement. Parts of a write cut short
// have no hearth_blobs row and are not listed: SweepBlobParts removes them.
func (s *Store) ListBlobs(ctx context.Context, after string, fn func(id string) error) error {
	for {
		rows, err := s.pool.Query(ctx, `SELECT id FROM hearth_blobs WHERE id COLLATE "C" > $1 ORDER BY id COLLATE "C" LIMIT 1000`, after)
		if err != nil {
			return mapErr(err)
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return mapErr(err)
		}
		for _, id := range ids {
			if err := fn(id); err != nil {
				if errors.Is(err, engine.ErrStopScan) {
					return nil
				}
				return err
			}
		}
		if len(ids) < 1000 {
			return nil
		}
		after = ids[len(ids)-1]
	}
}
