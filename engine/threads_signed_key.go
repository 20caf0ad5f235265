package engine

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// keyThreadIDKey holds the key that signs thread ids (threads_signed.go).
// It is a store record, so it survives restarts, travels with backups and
// restores, and is shared by every node of a cluster.
const keyThreadIDKey = prefixMeta + "thread-id-key"

// threadIDKeyRecord is the stored key: 32 random bytes in hex.
type threadIDKeyRecord struct {
	Key       string    `json:"key"`
	CreatedAt time.Time `json:"created_at"`
}

// threadIDKey is the loaded key with its HMAC pads (RFC 2104) worked out
// once, so signing an id allocates nothing.
type threadIDKey struct{ ipad, opad [sha256.BlockSize]byte }

func newThreadIDKey(rec threadIDKeyRecord) (*threadIDKey, error) {
	b, err := hex.DecodeString(rec.Key)
	if err != nil || len(b) != 32 {
		return nil, Errorf(CodeInternal, "corrupt record %s: want 64 hex characters", keyThreadIDKey)
	}
	k := &threadIDKey{}
	for i := range k.ipad {
		var c byte
		if i < len(b) {
			c = b[i]
		}
		k.ipad[i], k.opad[i] = c^0x36, c^0x5c
	}
	return k, nil
}

// mac is the first 64 bits of HMAC-SHA256(key, label, owner, pipe part,
// uuid), each field ended by a NUL byte (no field holds one).
func (k *threadIDKey) mac(owner, pipePart string, uuid []byte) [signedMACHexLen / 2]byte {
	var buf [256]byte
	b := append(buf[:0], k.ipad[:]...)
	b = append(append(b, threadMACLabel...), 0)
	b = append(append(b, owner...), 0)
	b = append(append(b, pipePart...), 0)
	b = append(b, uuid...)
	inner := sha256.Sum256(b)
	b = append(append(buf[:0], k.opad[:]...), inner[:]...)
	sum := sha256.Sum256(b)
	return [signedMACHexLen / 2]byte(sum[:signedMACHexLen/2])
}

// signingKey holds the thread id key once loaded. The key is created once
// per database (create-if-absent, LoadIDKey) and never changes, so every
// node of a cluster that caches it holds the same key, and no invalidation
// is needed.
type signingKey struct {
	mu  sync.Mutex
	key atomic.Pointer[threadIDKey]
}

// LoadIDKey reads the key that signs thread ids, creating it on the first
// start of a database. Several nodes starting together agree on one key:
// the key is created in a read-then-write transaction, which the store
// serialises (a node that loses the race reads the winner's key). The
// thread service loads it on first use too; calling it at start surfaces a
// store error early.
func (ts *Threads) LoadIDKey(ctx context.Context) error {
	_, err := ts.idKey(ctx)
	return err
}

// idKey returns the signing key, loading or creating it on first use.
func (ts *Threads) idKey(ctx context.Context) (*threadIDKey, error) {
	if k := ts.signing.key.Load(); k != nil {
		return k, nil
	}
	ts.signing.mu.Lock()
	defer ts.signing.mu.Unlock()
	if k := ts.signing.key.Load(); k != nil {
		return k, nil
	}
	var rec threadIDKeyRecord
	err := ts.store.Update(ctx, func(tx Tx) error {
		err := tx.Get(keyThreadIDKey, &rec)
		if !errors.Is(err, ErrNotFound) {
			return err
		}
		var b [32]byte
		if _, err := rand.Read(b[:]); err != nil {
			return err
		}
		rec = threadIDKeyRecord{Key: hex.EncodeToString(b[:]), CreatedAt: time.Now().UTC()}
		return tx.Put(keyThreadIDKey, rec)
	})
	if err != nil {
		return nil, err
	}
	k, err := newThreadIDKey(rec)
	if err != nil {
		return nil, err
	}
	ts.signing.key.Store(k)
	return k, nil
}

// idKeyInTx returns the signing key as tx sees it, or nil when the database
// has none yet (then no signed id was ever drawn from it).
func (ts *Threads) idKeyInTx(tx Tx) (*threadIDKey, error) {
	if k := ts.signing.key.Load(); k != nil {
		return k, nil
	}
	var rec threadIDKeyRecord
	if err := tx.Get(keyThreadIDKey, &rec); errors.Is(err, ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	k, err := newThreadIDKey(rec)
	if err != nil {
		return nil, err
	}
	ts.signing.key.CompareAndSwap(nil, k)
	return k, nil
}
