package engine

import "errors"

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
