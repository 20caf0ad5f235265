package engine

import (
	"encoding/json"
	"fmt"
)

// NewKeySetter is a Tx that writes a key its caller has just made from a
// fresh random id (a run record, a new thread's record and messages) more
// cheaply than Put, as the key is expected to be new. Its effect is
// Put's even when the key exists after all; only the cost differs (the
// PostgreSQL store sends a plain INSERT and, should the key exist, runs
// the transaction again with upserts). It keeps key and value until the
// transaction ends, without copying them: the caller must not change
// either slice afterwards.
type NewKeySetter interface {
	SetNew(key, value []byte) error
}

// putNew writes the JSON encoding of v under key, a key the caller has
// just made (NewKeySetter), through SetNew when tx has it and Put
// otherwise.
func putNew(tx Tx, key string, v any) error {
	s, ok := tx.(NewKeySetter)
	if !ok {
		return tx.Put(key, v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", key, err)
	}
	return s.SetNew([]byte(key), b)
}
