package engine

import (
	"context"
	"time"
)

// A thread named by a signed id (threads_signed.go) exists from its id:
// until it is first changed it has no record, and reads build it from the
// id (created_at, its pipe, no metadata, no messages). The first change
// (messages appended through /v1/threads or by a run of a pipe that
// stores its conversation, a metadata update) writes its record and index
// entry, after which it is a thread like any other. Deleting it writes a
// tombstone, so the id never verifies into a thread again.
//
// Listings read the index, so a thread without a record is not listed
// until it is first changed; nothing else enumerates threads.
//
// Key schema:
//
//	threadgone/<owner>/<id>  threadTombstone (a deleted signed thread)

const prefixThreadGone = "threadgone/"

func threadGoneKey(owner, id string) string { return prefixThreadGone + owner + "/" + id }

// threadTombstone marks a deleted thread whose id is signed.
type threadTombstone struct {
	DeletedAt time.Time `json:"deleted_at"`
}

// getThread returns owner's thread id: its record, or the thread a signed
// id names when it has none and was not deleted. Anything else is the
// NOT_FOUND of a missing thread.
func (ts *Threads) getThread(tx Tx, owner, id string) (*Thread, error) {
	t, err := getThread(tx, owner, id)
	if err == nil || !IsNotFound(err) {
		return t, err
	}
	v, verr := ts.virtualThread(tx, owner, id)
	if verr != nil {
		return nil, verr
	}
	if v == nil {
		return nil, err
	}
	return v, nil
}

// signedFor parses id as a signed thread id and reports whether it was
// drawn for owner under the database's key.
func (ts *Threads) signedFor(tx Tx, owner, id string) (signedThreadID, bool, error) {
	s, ok := parseSignedThreadID(id)
	if !ok {
		return s, false, nil
	}
	key, err := ts.idKeyInTx(tx)
	if err != nil || key == nil {
		return s, false, err
	}
	return s, s.verify(key, owner), nil
}

// virtualThread is the unwritten thread id names for owner, or nil when id
// is not signed for owner or was deleted.
func (ts *Threads) virtualThread(tx Tx, owner, id string) (*Thread, error) {
	s, ok, err := ts.signedFor(tx, owner, id)
	if err != nil || !ok {
		return nil, err
	}
	if gone, err := tx.Exists(threadGoneKey(owner, id)); err != nil || gone {
		return nil, err
	}
	return &Thread{ID: id, Owner: owner, CreatedAt: s.created, Metadata: map[string]string{}, PipeID: s.pipeID(), virtual: true}, nil
}

// materialize writes what a thread read from its signed id lacks before
// its first change: its internal key and its index entry (the caller
// writes the thread record). p, when it is the thread's pipe, names it.
func (ts *Threads) materialize(ctx context.Context, tx Tx, t *Thread, p *Pipe) error {
	if !t.virtual {
		return nil
	}
	if p != nil && p.ID == t.PipeID {
		t.Pipe = p.Name
	}
	t.Key, t.virtual, t.unwritten = NewID(ctx, 20), false, true
	return putNew(tx, threadIdxKey(t.Owner, t), "")
}

// buryThread writes the tombstone of a deleted thread whose id is signed
// for owner, so that the id does not name an empty thread again.
func (ts *Threads) buryThread(ctx context.Context, tx Tx, owner, id string) error {
	_, signed, err := ts.signedFor(tx, owner, id)
	if err != nil || !signed {
		return err
	}
	return tx.Put(threadGoneKey(owner, id), threadTombstone{DeletedAt: NowFrom(ctx, ts.now).UTC()})
}

// claimThreadID lets POST /v1/threads create a thread under id, which has
// no record: a CONFLICT when id names an unwritten thread of owner (it
// exists), and the tombstone is lifted when it names a deleted one.
func (ts *Threads) claimThreadID(tx Tx, owner, id string) error {
	_, signed, err := ts.signedFor(tx, owner, id)
	if err != nil || !signed {
		return err
	}
	gone, err := tx.Exists(threadGoneKey(owner, id))
	if err != nil {
		return err
	}
	if !gone {
		return Errorf(CodeConflict, "thread %q already exists", id)
	}
	return tx.Delete(threadGoneKey(owner, id))
}

// newThreadID names the new thread of a run. A run of a pipe that does not
// store its conversation gets a signed id and writes nothing; other runs
// (and any run when the pipe's id cannot be signed, the key cannot be
// loaded, or ids are deterministic) get a UUID, written at the end of the
// run.
func (pr *PreparedRun) newThreadID(ctx context.Context) string {
	p := pr.Pipe
	if p.Store || idsFrom(ctx) != nil {
		return NewUUID(ctx)
	}
	part, ok := signedPipePart(p.ID)
	if !ok {
		return NewUUID(ctx)
	}
	key, err := pr.r.threads.idKey(ctx)
	if err != nil {
		pr.r.log.Warn("thread id key unavailable: the run's empty thread is written instead", "err", err)
		return NewUUID(ctx)
	}
	pr.signedThread = true
	return newSignedThreadIDIn(&pr.threadIDBuf, key, p.Owner, part, pr.created)
}
