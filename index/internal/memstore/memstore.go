// Package memstore is an in-memory engine.Store for tests of the index
// package. It honours the interface semantics that the index relies on:
// Update is all-or-nothing, View sees a consistent snapshot, Scan visits keys
// in bytewise order. Values are copied in and out, as Badger does.
package memstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/hearth-dev/hearth/engine"
)

// Store is a map guarded by one RWMutex; Update holds the write lock for the
// whole transaction, so transactions are serialisable.
type Store struct {
	mu     sync.RWMutex
	data   map[string][]byte
	sortMu sync.Mutex // guards sorted, which readers rebuild lazily
	sorted []string   // sorted keys, nil when stale
	blobs  map[string][]byte

	// FailUpdate, when set, is called before each Update commits; a non-nil
	// error aborts that transaction. Tests use it to simulate a crash.
	FailUpdate func() error
}

// New returns an empty store.
func New() *Store {
	return &Store{data: map[string][]byte{}, blobs: map[string][]byte{}}
}

// Len returns the number of keys with the prefix.
func (s *Store) Len(prefix string) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := 0
	for k := range s.data {
		if strings.HasPrefix(k, prefix) {
			n++
		}
	}
	return n
}

// View runs fn on the committed state.
func (s *Store) View(ctx context.Context, fn func(tx engine.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return fn(&tx{s: s, readOnly: true})
}

// Update runs fn with buffered writes and applies them only when fn and the
// FailUpdate hook both succeed.
func (s *Store) Update(ctx context.Context, fn func(tx engine.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := &tx{s: s, writes: map[string][]byte{}}
	if err := fn(t); err != nil {
		return err
	}
	if s.FailUpdate != nil {
		if err := s.FailUpdate(); err != nil {
			return err
		}
	}
	for k, v := range t.writes {
		if _, ok := s.data[k]; !ok || v == nil {
			s.sortMu.Lock()
			s.sorted = nil
			s.sortMu.Unlock()
		}
		if v == nil {
			delete(s.data, k)
		} else {
			s.data[k] = v
		}
	}
	return nil
}

// PutBlob stores r under id.
func (s *Store) PutBlob(ctx context.Context, id string, r io.Reader) (int64, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.blobs[id] = b
	return int64(len(b)), nil
}

// GetBlob returns the blob under id or engine.ErrNotFound.
func (s *Store) GetBlob(ctx context.Context, id string) ([]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	b, ok := s.blobs[id]
	if !ok {
		return nil, engine.ErrNotFound
	}
	return bytes.Clone(b), nil
}

// DeleteBlob removes a blob.
func (s *Store) DeleteBlob(ctx context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.blobs, id)
	return nil
}

// Close is a no-op.
func (s *Store) Close() error { return nil }

func (s *Store) keys() []string {
	s.sortMu.Lock()
	defer s.sortMu.Unlock()
	if s.sorted == nil {
		s.sorted = make([]string, 0, len(s.data))
		for k := range s.data {
			s.sorted = append(s.sorted, k)
		}
		sort.Strings(s.sorted)
	}
	return s.sorted
}

type tx struct {
	s        *Store
	readOnly bool
	writes   map[string][]byte // nil value = delete
}

var errReadOnly = errors.New("memstore: write in a read-only transaction")

func (t *tx) lookup(key string) ([]byte, bool) {
	if v, ok := t.writes[key]; ok {
		return v, v != nil
	}
	v, ok := t.s.data[key]
	return v, ok
}

func (t *tx) Get(key string, v any) error {
	b, ok := t.lookup(key)
	if !ok {
		return engine.ErrNotFound
	}
	return json.Unmarshal(b, v)
}

func (t *tx) Put(key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return t.PutRaw(key, b)
}

func (t *tx) GetRaw(key string) ([]byte, error) {
	b, ok := t.lookup(key)
	if !ok {
		return nil, engine.ErrNotFound
	}
	return bytes.Clone(b), nil
}

func (t *tx) PutRaw(key string, b []byte) error {
	if t.readOnly {
		return errReadOnly
	}
	if b == nil {
		b = []byte{}
	}
	t.writes[key] = bytes.Clone(b)
	return nil
}

func (t *tx) Delete(key string) error {
	if t.readOnly {
		return errReadOnly
	}
	t.writes[key] = nil
	return nil
}

func (t *tx) Exists(key string) (bool, error) {
	_, ok := t.lookup(key)
	return ok, nil
}

func (t *tx) Scan(prefix, after string, fn func(key string, value []byte) error) error {
	keys := t.s.keys()
	// Merge in keys written by this transaction that are not committed yet.
	var extra []string
	for k, v := range t.writes {
		if v != nil && strings.HasPrefix(k, prefix) {
			if _, ok := t.s.data[k]; !ok {
				extra = append(extra, k)
			}
		}
	}
	if len(extra) > 0 {
		all := make([]string, 0, len(keys)+len(extra))
		all = append(all, keys...)
		all = append(all, extra...)
		sort.Strings(all)
		keys = all
	}
	start := sort.SearchStrings(keys, prefix)
	// Badger seeks to after+"\x00": a cursor equal to the prefix skips the key
	// equal to the prefix too.
	if after != "" && after >= prefix {
		start = sort.Search(len(keys), func(i int) bool { return keys[i] > after })
	}
	for _, k := range keys[start:] {
		if !strings.HasPrefix(k, prefix) {
			break
		}
		v, ok := t.lookup(k)
		if !ok {
			continue
		}
		if err := fn(k, v); err != nil {
			if err == engine.ErrStopScan {
				return nil
			}
			return err
		}
	}
	return nil
}

var _ engine.Store = (*Store)(nil)
