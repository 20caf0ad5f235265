package blob

import (
	"sync"

	"github.com/dgraph-io/badger/v4"
)

// entrySlab is how many Badger entries a write transaction takes from one
// allocation.
const entrySlab = 32

// txs recycles write transactions and their entry slabs. A tx is handed
// to one Update's function and must not be used after it returns (as
// engine.Store documents); Update clears its transaction before putting
// it back, so a tx kept by mistake fails with a nil transaction rather
// than write into another caller's. Each process pools its own; nothing
// here is shared between nodes.
var txs = sync.Pool{New: func() any { return new(tx) }}

// entry returns an entry for key and value from the transaction's slab.
// Badger keeps the pointer until the transaction ends and allows the
// entry to be reused after that
// (https://pkg.go.dev/github.com/dgraph-io/badger/v4#Txn.SetEntry), so a
// slab is reused by the next transaction; a full slab is left to the
// transaction still holding it and a fresh one started.
func (t *tx) entry(key, value []byte) *badger.Entry {
	if t.used == len(t.slab) {
		t.slab, t.used = make([]badger.Entry, entrySlab), 0
	}
	e := &t.slab[t.used]
	t.used++
	*e = badger.Entry{Key: key, Value: value}
	return e
}

// release clears what the transaction referenced and pools it.
func (t *tx) release() {
	clear(t.slab[:t.used])
	t.txn, t.used = nil, 0
	txs.Put(t)
}

// SetOwned stores value under key, keeping both slices until the
// transaction ends (engine.OwnedSetter).
func (t *tx) SetOwned(key, value []byte) error {
	return mapErr(t.txn.SetEntry(t.entry(key, value)))
}
