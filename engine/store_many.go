package engine

import (
	"context"
	"errors"
)

// ManyGetter is a Tx that reads several keys at once; a store across a
// network (PostgreSQL) implements it to read them in one round trip.
type ManyGetter interface {
	// GetRawMany returns the value of each key, in order, nil for a
	// missing one (a present empty value is non-nil).
	GetRawMany(keys []string) ([][]byte, error)
}

// GetRawMany reads keys in tx, in one go when tx is a ManyGetter and one
// by one otherwise; a missing key's value is nil.
func GetRawMany(tx Tx, keys []string) ([][]byte, error) {
	if m, ok := tx.(ManyGetter); ok {
		return m.GetRawMany(keys)
	}
	out := make([][]byte, len(keys))
	for i, k := range keys {
		v, err := tx.GetRaw(k)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if v == nil {
			v = []byte{}
		}
		out[i] = v
	}
	return out, nil
}

// DirectReader is a Store that reads keys in one statement of their own,
// outside any transaction: the statement is its own snapshot, so a read
// that needs no other read to agree with it skips a transaction's extra
// round trips (BEGIN and ROLLBACK on PostgreSQL).
type DirectReader interface {
	// ReadRawMany returns the value of each key, in order, nil for a
	// missing one (a present empty value is non-nil), all read at one
	// instant.
	ReadRawMany(ctx context.Context, keys []string) ([][]byte, error)
}

// ReadRawMany reads keys from s at one instant: in one statement when s is
// a DirectReader, else in one View. A missing key's value is nil.
func ReadRawMany(ctx context.Context, s Store, keys []string) ([][]byte, error) {
	if d, ok := s.(DirectReader); ok {
		return d.ReadRawMany(ctx, keys)
	}
	var out [][]byte
	err := s.View(ctx, func(tx Tx) error {
		var err error
		out, err = GetRawMany(tx, keys)
		return err
	})
	return out, err
}

// ReadRaw reads one key from s outside any transaction when s is a
// DirectReader (one round trip on PostgreSQL), else in one View; a missing
// key is ErrNotFound.
func ReadRaw(ctx context.Context, s Store, key string) ([]byte, error) {
	vs, err := ReadRawMany(ctx, s, []string{key})
	if err != nil {
		return nil, err
	}
	if vs[0] == nil {
		return nil, ErrNotFound
	}
	return vs[0], nil
}
