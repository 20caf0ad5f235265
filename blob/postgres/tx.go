package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/hearth-dev/hearth/engine"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Scan reads a prefix a page at a time, keyed on the last key returned, so a
// large prefix is never held in memory. A page ends after scanPageRows rows
// or once it holds scanPageBytes of values, whichever comes first.
const (
	scanPageRows  = 128
	scanPageBytes = 4 << 20
)

var errReadOnly = errors.New("postgres store: write inside a read-only transaction (View)")

type tx struct {
	ctx      context.Context
	c        *pgxpool.Conn
	trips    *atomic.Uint64 // the store's round trip count
	readOnly bool
	begin    string // the BEGIN statement, until it is queued (tx_queue.go)
	conflict error  // the first serialization failure seen
	noInsert bool   // SetNew upserts: an earlier attempt met an existing key
	inserted bool   // SetNew queued a plain INSERT
	exists   error  // the first unique violation of such an INSERT

	// The queue of writes not sent yet (tx_queue.go).
	batch pgx.Batch // statements, in order
	run   upserts   // puts after the last statement, not yet in batch
	rows  int       // rows queued in batch and run
	bytes int       // the size of their values
}

// check records a serialization failure (Update retries the transaction
// even if fn swallows the error) and maps err for the caller.
func (t *tx) check(err error) error {
	if isRetryable(err) && t.conflict == nil {
		t.conflict = err
	}
	if t.inserted && isUniqueViolation(err) && t.exists == nil {
		t.exists = err
	}
	return mapErr(err)
}

func (t *tx) GetRaw(key string) ([]byte, error) {
	var v []byte
	found := false
	err := t.read(func(rs pgx.Rows) error {
		if found = rs.Next(); found {
			return rs.Scan(&v)
		}
		return nil
	}, `SELECT v FROM hearth_kv WHERE k = $1`, []byte(key))
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, engine.ErrNotFound
	}
	if v == nil {
		v = []byte{}
	}
	return v, nil
}

func (t *tx) Get(key string, v any) error {
	b, err := t.GetRaw(key)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode %s: %w", key, err)
	}
	return nil
}

func (t *tx) Put(key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", key, err)
	}
	return t.put(key, b) // b is this call's own
}

func (t *tx) PutRaw(key string, b []byte) error {
	// The write is sent later and the caller may reuse b: queue a copy.
	return t.put(key, append(make([]byte, 0, len(b)), b...))
}

func (t *tx) Delete(key string) error {
	return t.exec(0, `DELETE FROM hearth_kv WHERE k = $1`, []byte(key))
}

func (t *tx) Exists(key string) (bool, error) {
	var ok bool
	err := t.read(func(rs pgx.Rows) error {
		if !rs.Next() {
			return rs.Err()
		}
		return rs.Scan(&ok)
	}, `SELECT EXISTS (SELECT 1 FROM hearth_kv WHERE k = $1)`, []byte(key))
	return ok, err
}

type row struct{ k, v []byte }

func (t *tx) Scan(prefix, after string, fn func(key string, value []byte) error) error {
	lo, inclusive := []byte(prefix), true
	if after != "" && after >= prefix {
		lo, inclusive = []byte(after), false
	}
	hi := successor([]byte(prefix))
	for {
		page, more, err := t.page(lo, inclusive, hi)
		if err != nil {
			return err
		}
		for _, r := range page {
			if err := fn(string(r.k), r.v); err != nil {
				if err == engine.ErrStopScan {
					return nil
				}
				return err
			}
		}
		if !more {
			return nil
		}
		lo, inclusive = page[len(page)-1].k, false
	}
}

// page reads the rows of one page into memory (fn may query the same
// connection, so no result set may stay open while it runs); more reports
// that the range may hold further rows.
func (t *tx) page(lo []byte, inclusive bool, hi []byte) (rows []row, more bool, err error) {
	op := ">"
	if inclusive {
		op = ">="
	}
	args := []any{lo, scanPageRows}
	q := `SELECT k, v FROM hearth_kv WHERE k ` + op + ` $1 ORDER BY k LIMIT $2`
	if hi != nil {
		q = `SELECT k, v FROM hearth_kv WHERE k ` + op + ` $1 AND k < $3 ORDER BY k LIMIT $2`
		args = append(args, hi)
	}
	full := false
	err = t.read(func(rs pgx.Rows) error {
		size := 0
		for rs.Next() {
			var r row
			if err := rs.Scan(&r.k, &r.v); err != nil {
				return err
			}
			rows = append(rows, r)
			if size += len(r.v); size >= scanPageBytes {
				full = true
				return nil
			}
		}
		return nil
	}, q, args...)
	if err != nil {
		return nil, false, err
	}
	return rows, full || len(rows) == scanPageRows, nil
}

// successor returns the smallest key greater than every key with the
// prefix: the prefix without its trailing 0xff bytes, last byte plus one.
// It is nil (no upper bound) when the prefix is empty or all 0xff.
func successor(prefix []byte) []byte {
	for i := len(prefix) - 1; i >= 0; i-- {
		if prefix[i] != 0xff {
			s := append([]byte(nil), prefix[:i+1]...)
			s[i]++
			return s
		}
	}
	return nil
}

// GetRawMany reads keys in one round trip (engine.ManyGetter).
func (t *tx) GetRawMany(keys []string) ([][]byte, error) {
	var out [][]byte
	err := t.read(func(rs pgx.Rows) (err error) {
		out, err = scanMany(rs, keys)
		return err
	}, readManySQL, keyArgs(keys))
	return out, err
}

// querier is what readMany needs of a transaction or the pool.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

const readManySQL = `SELECT k, v FROM hearth_kv WHERE k = ANY($1::bytea[])`

// readMany reads keys in one statement on q; a missing key's value is nil.
func readMany(ctx context.Context, q querier, keys []string) ([][]byte, error) {
	rs, err := q.Query(ctx, readManySQL, keyArgs(keys))
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	return scanMany(rs, keys)
}

func keyArgs(keys []string) [][]byte {
	ks := make([][]byte, len(keys))
	for i, k := range keys {
		ks[i] = []byte(k)
	}
	return ks
}

// scanMany reads the rows of readManySQL into the values of keys, in
// order; a missing key's value is nil.
func scanMany(rs pgx.Rows, keys []string) ([][]byte, error) {
	got := make(map[string][]byte, len(keys))
	for rs.Next() {
		var k, v []byte
		if err := rs.Scan(&k, &v); err != nil {
			return nil, err
		}
		if v == nil {
			v = []byte{}
		}
		got[string(k)] = v
	}
	if err := rs.Err(); err != nil {
		return nil, err
	}
	out := make([][]byte, len(keys))
	for i, k := range keys {
		out[i] = got[k]
	}
	return out, nil
}

var (
	_ engine.ManyGetter   = (*tx)(nil)
	_ engine.NewKeySetter = (*tx)(nil)
)
