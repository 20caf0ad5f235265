package index

import (
	"context"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// Cluster mode: several nodes share the store, and each keeps its graphs
// and Bleve indexes as replicas brought up to date from the change log
// (see doc.go, "Cluster mode"). Nothing here runs with engine.Local.

// changeTopic is the engine.Cluster topic of index changes; the key is the
// memory id.
const changeTopic = "index"

// catchUpPage bounds the change log entries read in one transaction.
const catchUpPage = 64

func snapshotLock(mem string) string { return "index-snapshot:" + mem }

// notify is the Subscribe callback: it queues the memory for the follower.
func (m *Manager) notify(key string) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.pending[key] = true
	m.mu.Unlock()
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// follow applies other nodes' changes to the loaded memories: when notified
// and, in case a notification was lost, when a poll of the stored sequence
// numbers finds a memory behind.
func (m *Manager) follow(every time.Duration) {
	defer m.wg.Done()
	ctx := context.Background()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-m.wake:
			m.mu.Lock()
			p := m.pending
			m.pending = map[string]bool{}
			m.mu.Unlock()
			for _, mi := range m.all() {
				if p[""] || p[mi.id] {
					m.refresh(ctx, mi)
				}
			}
		case <-t.C:
			m.poll(ctx)
		}
	}
}

// poll reads the stored sequence number of every loaded memory in one
// transaction and catches up those this node is behind on.
func (m *Manager) poll(ctx context.Context) {
	mems := m.all()
	stored := make([]uint64, len(mems))
	err := m.store.View(ctx, func(tx engine.Tx) error {
		for i, mi := range mems {
			if !mi.loaded.Load() {
				continue
			}
			s, err := getU64(tx, seqKey(mi.id))
			if err != nil {
				return err
			}
			stored[i] = s
		}
		return nil
	})
	if err != nil {
		m.log.Warn("index change poll failed", "err", err)
		return
	}
	for i, mi := range mems {
		mi.mu.Lock()
		behind := mi.loaded.Load() && !mi.dropped && (stored[i] != mi.seq || stored[i] != mi.kwAt || mi.kwStale)
		mi.mu.Unlock()
		if behind {
			m.refresh(ctx, mi)
		}
	}
}

// fresh brings a memory's replicas up to the store's latest change before
// a search in cluster mode: one read of the memory's seq key, and a
// catch-up only when this node is behind. A document another node
// reported completed (its index change committed before its status) is so
// found by a search on any node right after, without waiting for the
// notification or the poll (read your writes across nodes). The read is
// one statement outside any transaction, shared with the searches of the
// memory that want one at the same time, and with the other calls of the
// same search (engine.WithSearchStart; see seqReads).
func (m *Manager) fresh(ctx context.Context, mi *memIndex) error {
	since, _ := engine.SearchStart(ctx)
	stored, err := mi.seqReads.read(ctx, since, func(ctx context.Context) (uint64, error) {
		b, err := engine.ReadRaw(ctx, m.store, seqKey(mi.id))
		if engine.IsNotFound(err) {
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
		return decodeU64(seqKey(mi.id), b)
	})
	if err != nil {
		return engine.Wrap(err, engine.CodeInternal, "cannot read the index change log")
	}
	mi.mu.Lock()
	behind := mi.loaded.Load() && !mi.dropped && (stored != mi.seq || stored != mi.kwAt || mi.kwStale)
	mi.mu.Unlock()
	if behind {
		m.refresh(ctx, mi)
	}
	return nil
}

// refresh catches a loaded memory up with the change log.
func (m *Manager) refresh(ctx context.Context, mi *memIndex) {
	mi.mu.Lock()
	defer mi.mu.Unlock()
	if !mi.loaded.Load() || mi.dropped {
		return
	}
	if err := m.catchUp(ctx, mi); err != nil {
		m.log.Error("cannot apply the changes of other nodes to the search index", "memory", mi.id, "err", err)
	}
}

// catchUp applies the change log entries after mi.seq to the graph and
// those after mi.kwAt to the Bleve index. When the log no longer holds an
// entry a replica needs (trimmed), the graph is replayed from the vector
// records and the Bleve index rebuilt from the chunk texts. The caller
// holds mi.mu.
func (m *Manager) catchUp(ctx context.Context, mi *memIndex) error {
	var cur uint64
	// vecLog and kwLog: the log still covers the replica's position.
	vecLog, kwLog := true, true
	for vecLog || kwLog {
		from := mi.seq
		if !vecLog || (kwLog && mi.kwAt < from) {
			from = mi.kwAt
		}
		var entries []*change
		dropping := false
		err := m.store.View(ctx, func(tx engine.Tx) error {
			entries = nil
			size := 0
			var err error
			if dropping, err = tx.Exists(dropKey(mi.id)); err != nil || dropping {
				return err
			}
			if cur, err = getU64(tx, seqKey(mi.id)); err != nil || cur <= from {
				return err
			}
			return tx.Scan(logPrefix(mi.id), logKey(mi.id, from), func(k string, v []byte) error {
				seq, ok := parseLogKey(mi.id, k)
				if !ok || seq > cur {
					return engine.ErrStopScan
				}
				c, err := decodeChange(seq, v)
				if err != nil {
					m.log.Warn("skipping a malformed change log entry", "memory", mi.id, "seq", seq)
					return engine.ErrStopScan
				}
				entries, size = append(entries, c), size+len(v)
				if len(entries) == catchUpPage || size >= catchUpBytes {
					return engine.ErrStopScan
				}
				return nil
			})
		})
		if err != nil {
			return engine.Wrap(err, engine.CodeInternal, "cannot read the index change log")
		}
		if dropping || cur < max(mi.seq, mi.kwAt) {
			// Another node deleted the memory (and may have created it
			// again): start from nothing.
			m.reset(mi)
			if dropping {
				return nil
			}
			vecLog, kwLog = true, true
			continue
		}
		// Within one transaction the log has no gaps (see doc.go), so a
		// replica's next entry is missing only when the first one read is
		// past it: the log was trimmed beyond the replica's position.
		covers := func(at uint64) bool { return len(entries) > 0 && entries[0].seq <= at+1 }
		vecLog = vecLog && mi.seq < cur && covers(mi.seq)
		kwLog = kwLog && mi.kwAt < cur && covers(mi.kwAt)
		for _, c := range entries {
			m.applyChange(mi, c)
		}
	}
	if mi.seq < cur {
		added, removed, seq, err := m.replay(ctx, mi, mi.seq)
		if err != nil {
			return err
		}
		m.log.Info("index replayed from the vector records: the change log no longer covers this node's position",
			"memory", mi.id, "added", added, "removed", removed)
		mi.seq, mi.dirty = seq, true
	}
	if mi.kwAt < cur || mi.kwStale {
		if err := m.rebuildKeywordShared(ctx, mi, "the change log no longer covers this node's keyword index"); err != nil {
			return engine.Wrap(err, engine.CodeInternal, "cannot rebuild the keyword index")
		}
	}
	return nil
}

// reset empties a memory's replicas after another node deleted it.
func (m *Manager) reset(mi *memIndex) {
	mi.vec = NewHNSW(m.opts.HNSW)
	mi.seq, mi.kwAt, mi.gen, mi.dirty, mi.kwStale, mi.marks = 0, 0, 0, false, false, nil
	if err := m.swapKeyword(mi, "", false); err != nil {
		m.log.Warn("cannot delete the keyword index", "memory", mi.id, "err", err)
		mi.kwStale = true
	}
}

// applyChange applies c to each replica whose next change it is and
// reports whether it applied it to any. The caller holds mi.mu.
func (m *Manager) applyChange(mi *memIndex, c *change) bool {
	did := false
	if c.seq == mi.seq+1 {
		m.insertVectors(mi, c.vecPut, c.vecs)
		for _, id := range c.vecDel {
			mi.vec.Delete(id)
		}
		mi.seq, did = c.seq, true
		if len(c.vecPut)+len(c.vecDel) > 0 {
			mi.dirty = true
		}
	}
	if c.seq == mi.kwAt+1 {
		if !mi.kwStale && len(c.kwPut)+len(c.kwDel) > 0 {
			kw, err := m.keyword(mi, len(c.kwPut) > 0)
			if err == nil && kw != nil {
				err = kw.applyAt(c.kwPut, c.kwDel, nodeSeqKey, c.seq)
			}
			if err != nil {
				m.log.Error("cannot update the keyword index", "memory", mi.id, "err", err)
				mi.kwStale = true
			}
		}
		mi.kwAt, did = c.seq, true
	}
	return did
}

// insertVectors adds unit vectors to the graph; a vector the graph refuses
// (another dimension) is skipped with a warning.
func (m *Manager) insertVectors(mi *memIndex, ids []string, vecs [][]float32) {
	if len(ids) == 0 || mi.vec.AddBatch(ids, vecs) == nil {
		return
	}
	for i, id := range ids {
		if err := mi.vec.Add(id, vecs[i]); err != nil {
			m.log.Warn("skipping a vector", "memory", mi.id, "chunk", id, "err", err)
		}
	}
}
