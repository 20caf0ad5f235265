// Package blob is the Badger-backed implementation of engine.Store: every
// record (JSON under a string key) and every document's bytes (zstd
// compressed, split into parts) live in one Badger database in the data dir.
package blob

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/dgraph-io/badger/v4"
	"github.com/hearth-dev/hearth/engine"
	"github.com/klauspost/compress/zstd"
)

// Options configure a Store.
type Options struct {
	// Dir is the data directory; empty with InMemory for a throwaway store.
	Dir      string
	InMemory bool
	// ReadOnly opens an existing store for reading only (used by backups and CLIs).
	ReadOnly bool
	Logger   *slog.Logger
	// GCInterval is how often value-log garbage collection runs (0: 10 minutes).
	GCInterval time.Duration
	// Snappy opens a store on disk with the options earlier versions used
	// by default (memory.go): 32 MiB memtables, Snappy-compressed tables of
	// Badger's sizes and a 4 KiB value threshold. Without it a store on
	// disk keeps its table builders' memory bounded under a sustained write
	// load and writes records of 256 bytes and more to its value log
	// (valuelog.go; docs/benchmarks.md; HEARTH_STORE_COMPRESSION=snappy
	// sets it). Either opens data dirs the other wrote.
	Snappy bool
	// valueLogFileSize is the size of one value-log file (0: 128 MiB); a
	// test sets it smaller to fill several files quickly.
	valueLogFileSize int64
}

// Store is an engine.Store over Badger.
type Store struct {
	opts Options
	db   *badger.DB
	enc  *zstd.Encoder
	dec  *zstd.Decoder
	stop chan struct{}
	wg   sync.WaitGroup
	once sync.Once
}

var _ engine.Store = (*Store)(nil)

// ErrLocked is returned by Open when another process holds the data dir.
var ErrLocked = errors.New("data dir is in use by another hearth process")

// New returns an unopened store.
func New(opts Options) *Store { return &Store{opts: opts} }

// Open opens (or creates) the database.
func (s *Store) Open() error {
	bo := badger.DefaultOptions(s.opts.Dir).
		WithInMemory(s.opts.InMemory).
		WithReadOnly(s.opts.ReadOnly).
		WithLogger(badgerLogger{s.logger()}).
		WithNumMemtables(3).
		WithBlockCacheSize(32 << 20).
		WithIndexCacheSize(16 << 20).
		WithValueLogFileSize(cmp.Or(s.opts.valueLogFileSize, 128<<20)).
		WithNumVersionsToKeep(1).
		WithCompactL0OnClose(true)
	bo = withMemoryBounds(bo, s.opts.Dir, s.opts.InMemory || s.opts.Snappy) // memory.go
	if s.opts.InMemory {
		bo.Dir, bo.ValueDir = "", ""
	} else {
		bo = bo.WithValueThreshold(valueThresholdFor(s.opts.Snappy)) // in memory, Badger refuses values over it
	}
	if !s.opts.InMemory && !s.opts.ReadOnly {
		if err := os.MkdirAll(s.opts.Dir, 0o700); err != nil {
			return fmt.Errorf("create data dir: %w", err)
		}
	}
	db, err := badger.Open(bo)
	if err != nil && !s.opts.InMemory && !s.opts.ReadOnly && isEmptyMemtableLog(err) {
		// A kill between Badger creating its next memtable log and sizing
		// it leaves a zero-byte NNNNN.mem; Badger's first open sizes that
		// file and then refuses it ("Create a new file"), and an open of the sized
		// (all-zero, so empty) log succeeds. The failed open released the
		// directory lock, so this retry is still the only opener.
		s.logger().Warn("badger found a memtable log created but never written (a kill during its creation); opening again")
		db, err = badger.Open(bo)
	}
	if err != nil {
		if strings.Contains(err.Error(), "Cannot acquire directory lock") || strings.Contains(err.Error(), "resource temporarily unavailable") {
			return fmt.Errorf("%w (%s)", ErrLocked, s.opts.Dir)
		}
		return fmt.Errorf("open badger: %w", err)
	}
	s.db = db
	s.enc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(PartLevel), zstd.WithEncoderConcurrency(1))
	s.dec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0))
	s.stop = make(chan struct{})
	if !s.opts.InMemory && !s.opts.ReadOnly {
		s.wg.Add(1)
		go s.gcLoop()
	}
	return nil
}

// isEmptyMemtableLog reports Badger's refusal of a memtable log that was
// created but never sized. Badger formats the cause with %+v rather than
// wrapping it, so only its text identifies it.
func isEmptyMemtableLog(err error) bool {
	m := err.Error()
	return strings.Contains(m, "while opening memtables") && strings.Contains(m, "Create a new file")
}

func (s *Store) logger() *slog.Logger {
	if s.opts.Logger != nil {
		return s.opts.Logger
	}
	return slog.Default()
}

// DB exposes the Badger handle for backups.
func (s *Store) DB() *badger.DB { return s.db }

// Close stops background work and closes the database.
func (s *Store) Close() error {
	var err error
	s.once.Do(func() {
		if s.db == nil {
			return
		}
		close(s.stop)
		s.wg.Wait()
		s.dec.Close()
		err = s.db.Close()
	})
	return err
}

func (s *Store) gcLoop() {
	defer s.wg.Done()
	every := s.opts.GCInterval
	if every <= 0 {
		every = 10 * time.Minute
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.collectValueLog()
		}
	}
}

// collectValueLog rewrites value-log files while Badger finds one of which
// at least half is deleted or overwritten values, and removes the files it
// rewrote.
func (s *Store) collectValueLog() {
	for s.db.RunValueLogGC(0.5) == nil {
	}
}

// View runs fn in a read-only transaction.
func (s *Store) View(ctx context.Context, fn func(engine.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.db.View(func(txn *badger.Txn) error { return fn(&tx{txn: txn}) })
}

// Update runs fn in a read-write transaction, retrying on write conflicts.
func (s *Store) Update(ctx context.Context, fn func(engine.Tx) error) error {
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := s.update(fn)
		if errors.Is(err, badger.ErrConflict) && attempt < 20 {
			time.Sleep(time.Duration(attempt+1) * time.Millisecond)
			continue
		}
		return mapErr(err)
	}
}

// update is badger.DB.Update with a pooled tx and without a closure.
func (s *Store) update(fn func(engine.Tx) error) error {
	if s.db.IsClosed() {
		return badger.ErrDBClosed
	}
	t := txs.Get().(*tx)
	t.txn = s.db.NewTransaction(true)
	defer func() {
		t.txn.Discard()
		t.release()
	}()
	if err := fn(t); err != nil {
		return err
	}
	return t.txn.Commit()
}

func mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, badger.ErrTxnTooBig):
		return engine.Wrap(err, engine.CodePayloadTooLarge, "too many changes in one request")
	case errors.Is(err, badger.ErrNoRewrite), errors.Is(err, badger.ErrConflict):
		return engine.Wrap(err, engine.CodeUnavailable, "storage is busy, try again")
	case isDiskFull(err):
		return engine.Wrap(err, engine.CodeInsufficientStore, "the server's disk is full")
	case errors.Is(err, badger.ErrBlockedWrites), errors.Is(err, syscall.EROFS), strings.Contains(err.Error(), "read-only"):
		return engine.Wrap(err, engine.CodeUnavailable, "storage is read-only")
	}
	return err
}

func isDiskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || strings.Contains(err.Error(), "no space left on device")
}

type tx struct {
	txn *badger.Txn
	// slab holds the entries of this transaction's writes, used of them
	// taken (txpool.go).
	slab []badger.Entry
	used int
}

func (t *tx) GetRaw(key string) ([]byte, error) {
	item, err := t.txn.Get(keyBytes(key))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, engine.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return item.ValueCopy(nil)
}

func (t *tx) Get(key string, v any) error {
	item, err := t.txn.Get(keyBytes(key))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return engine.ErrNotFound
	}
	if err != nil {
		return err
	}
	return item.Value(func(b []byte) error {
		if err := json.Unmarshal(b, v); err != nil {
			return fmt.Errorf("decode %s: %w", key, err)
		}
		return nil
	})
}

func (t *tx) Put(key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", key, err)
	}
	return t.set(append(append(make([]byte, 0, len(key)+len(b)), key...), b...), len(key))
}

func (t *tx) PutRaw(key string, b []byte) error {
	return t.set(append(append(make([]byte, 0, len(key)+len(b)), key...), b...), len(key))
}

// putValueHint is the room Put leaves for a value that encodes itself
// (a run record, a spend counter); a longer one grows the buffer.
const putValueHint = 512

// set writes the key kv[:n] with the value kv[n:]: one allocation holds
// both, which the transaction keeps until it commits.
func (t *tx) set(kv []byte, n int) error {
	return t.SetOwned(kv[:n:n], kv[n:])
}

// keyBytes gives Badger a lookup key without copying it: Txn.Get only
// reads the key (hashing it, building its own versioned copy) and the
// item that keeps it does not outlive the caller's use of the string.
func keyBytes(key string) []byte { return unsafe.Slice(unsafe.StringData(key), len(key)) }

func (t *tx) Delete(key string) error { return mapErr(t.txn.Delete([]byte(key))) }

func (t *tx) Exists(key string) (bool, error) {
	_, err := t.txn.Get(keyBytes(key))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return false, nil
	}
	return err == nil, err
}

func (t *tx) Scan(prefix, after string, fn func(key string, value []byte) error) error {
	opts := badger.DefaultIteratorOptions
	opts.Prefix = []byte(prefix)
	opts.PrefetchValues = false
	it := t.txn.NewIterator(opts)
	defer it.Close()
	// Start at the prefix, or just past the cursor when it sorts after the
	// prefix (a cursor before the prefix would otherwise end the scan at once).
	start := []byte(prefix)
	if after != "" && after >= prefix {
		start = append([]byte(after), 0)
	}
	for it.Seek(start); it.ValidForPrefix([]byte(prefix)); it.Next() {
		item := it.Item()
		err := item.Value(func(v []byte) error { return fn(string(item.Key()), v) })
		if err == engine.ErrStopScan {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

type badgerLogger struct{ l *slog.Logger }

func (b badgerLogger) Errorf(f string, a ...any) {
	b.l.Error("badger: " + strings.TrimSpace(fmt.Sprintf(f, a...)))
}
func (b badgerLogger) Warningf(f string, a ...any) {
	b.l.Warn("badger: " + strings.TrimSpace(fmt.Sprintf(f, a...)))
}
func (b badgerLogger) Infof(string, ...any)  {}
func (b badgerLogger) Debugf(string, ...any) {}
