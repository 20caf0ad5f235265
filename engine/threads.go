package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

const (
	prefixThread    = "thread/"
	prefixThreadIdx = "threadidx/"
	prefixMsg       = "msg/"
)

func threadKey(owner, id string) string { return prefixThread + owner + "/" + id }
func threadIdxKey(owner string, t *Thread) string {
	inv := math.MaxInt64 - t.CreatedAt.UnixNano()
	if inv < 0 {
		return fmt.Sprintf("%s%s/%019d/%s", prefixThreadIdx, owner, inv, t.ID)
	}
	// Built on the stack when it fits (every new thread writes one), so
	// only the returned string allocates.
	var buf [128]byte
	b := buf[:0]
	b = append(append(append(b, prefixThreadIdx...), owner...), '/')
	b = append(appendZeroPadded(b, inv, 19), '/')
	return string(append(b, t.ID...))
}
func msgPrefix(t *Thread) string { return prefixMsg + t.Key + "/" }
func msgKey(t *Thread, seq int64) string {
	if seq < 0 {
		return fmt.Sprintf("%s%016d", msgPrefix(t), seq)
	}
	var buf [96]byte // on the stack when the key fits: one allocation, the string
	b := append(append(append(buf[:0], prefixMsg...), t.Key...), '/')
	return string(appendZeroPadded(b, seq, 16))
}

// appendZeroPadded appends n (at least 0) in decimal, padded with zeros
// to width digits, as fmt's %0<width>d writes it.
func appendZeroPadded(b []byte, n int64, width int) []byte {
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], n, 10)
	for range width - len(d) {
		b = append(b, '0')
	}
	return append(b, d...)
}

// Threads stores conversations and their messages.
type Threads struct {
	store   Store
	now     func() time.Time
	limits  ThreadLimits
	signing signingKey
}

// NewThreads returns the thread service with the default ThreadLimits.
func NewThreads(store Store) *Threads {
	return &Threads{store: store, now: time.Now, limits: ThreadLimits{}.withDefaults()}
}

// ThreadCreate is the body of POST /v1/threads.
type ThreadCreate struct {
	ID       string
	Metadata map[string]string
	Messages []ThreadMessageInput
}

// Create stores a new thread, with a generated UUID unless in.ID is given
// (a CONFLICT when the owner already has a thread with that id), and its
// initial messages.
func (ts *Threads) Create(ctx context.Context, owner string, in ThreadCreate) (*Thread, error) {
	if in.ID != "" {
		if err := ValidateThreadID("threadId", in.ID); err != nil {
			return nil, err
		}
	}
	if err := validateMetadata("metadata", in.Metadata); err != nil {
		return nil, err
	}
	if err := ValidateThreadMessages("messages", in.Messages); err != nil {
		return nil, err
	}
	if err := ts.checkSizes("messages", in.ID, in.Messages); err != nil {
		return nil, err
	}
	var t *Thread
	err := ts.store.Update(ctx, func(tx Tx) error {
		id := in.ID
		if id == "" {
			id = NewUUID(ctx)
		} else if ok, err := tx.Exists(threadKey(owner, id)); err != nil {
			return err
		} else if ok {
			return Errorf(CodeConflict, "thread %q already exists", id)
		} else if err := ts.claimThreadID(tx, owner, id); err != nil {
			return err
		}
		t = ts.newThread(ctx, owner, id, in.Metadata)
		if err := tx.Put(threadIdxKey(owner, t), ""); err != nil {
			return err
		}
		_, err := ts.appendTx(ctx, tx, t, "messages", in.Messages)
		return err
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

func (ts *Threads) newThread(ctx context.Context, owner, id string, md map[string]string) *Thread {
	if md == nil {
		md = map[string]string{}
	}
	return &Thread{ID: id, Owner: owner, Key: NewID(ctx, 20), CreatedAt: NowFrom(ctx, ts.now).UTC(), Metadata: md}
}

// Get returns an owner's thread; another owner's thread is NOT_FOUND.
func (ts *Threads) Get(ctx context.Context, owner, id string) (*Thread, error) {
	var t *Thread
	err := ts.store.View(ctx, func(tx Tx) error {
		var err error
		t, err = ts.getThread(tx, owner, id)
		return err
	})
	return t, err
}

func getThread(tx Tx, owner, id string) (*Thread, error) {
	var t Thread
	if err := tx.Get(threadKey(owner, id), &t); err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, NotFound("thread", id)
		}
		return nil, err
	}
	if t.Metadata == nil {
		t.Metadata = map[string]string{}
	}
	return &t, nil
}

// UpdateMetadata merges patch into the thread's metadata: keys are added or
// replaced, and a nil value removes its key.
func (ts *Threads) UpdateMetadata(ctx context.Context, owner, id string, patch map[string]*string) (*Thread, error) {
	var t *Thread
	err := ts.store.Update(ctx, func(tx Tx) error {
		var err error
		if t, err = ts.getThread(tx, owner, id); err != nil {
			return err
		}
		if err := ts.materialize(ctx, tx, t, nil); err != nil {
			return err
		}
		for k, v := range patch {
			if v == nil {
				delete(t.Metadata, k)
			} else {
				t.Metadata[k] = *v
			}
		}
		if err := validateMetadata("metadata", t.Metadata); err != nil {
			return err
		}
		return tx.Put(threadKey(owner, id), t)
	})
	return t, err
}

// Delete removes a thread and its messages. The thread disappears in the
// first transaction; its messages are removed in batches after it, so a
// very long thread never exceeds a transaction's size.
func (ts *Threads) Delete(ctx context.Context, owner, id string) error {
	var t *Thread
	err := ts.store.Update(ctx, func(tx Tx) error {
		var err error
		if t, err = ts.getThread(tx, owner, id); err != nil {
			return err
		}
		if err := ts.buryThread(ctx, tx, owner, id); err != nil || t.virtual {
			return err
		}
		if err := tx.Delete(threadKey(owner, id)); err != nil {
			return err
		}
		return tx.Delete(threadIdxKey(owner, t))
	})
	if err != nil || t.virtual {
		return err
	}
	return deletePrefix(context.WithoutCancel(ctx), ts.store, msgPrefix(t), 1000)
}

// deletePrefix deletes every key under prefix, batch keys per transaction.
func deletePrefix(ctx context.Context, store Store, prefix string, batch int) error {
	for {
		var keys []string
		err := store.View(ctx, func(tx Tx) error {
			return tx.Scan(prefix, "", func(k string, _ []byte) error {
				keys = append(keys, k)
				if len(keys) >= batch {
					return ErrStopScan
				}
				return nil
			})
		})
		if err != nil || len(keys) == 0 {
			return err
		}
		err = store.Update(ctx, func(tx Tx) error {
			for _, k := range keys {
				if err := tx.Delete(k); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
}

// Append adds messages to a thread and returns them as stored.
func (ts *Threads) Append(ctx context.Context, owner, id string, msgs []ThreadMessageInput) ([]*ThreadMessage, error) {
	if err := ValidateThreadMessages("messages", msgs); err != nil {
		return nil, err
	}
	if err := ts.checkSizes("messages", id, msgs); err != nil {
		return nil, err
	}
	var out []*ThreadMessage
	err := ts.store.Update(ctx, func(tx Tx) error {
		t, err := ts.getThread(tx, owner, id)
		if err != nil {
			return err
		}
		out, err = ts.appendTx(ctx, tx, t, "messages", msgs)
		return err
	})
	return out, err
}

// appendTx writes messages after the thread's last one and saves the
// thread, refusing messages past the thread's MaxMessages (field names the
// request field that brought them).
func (ts *Threads) appendTx(ctx context.Context, tx Tx, t *Thread, field string, msgs []ThreadMessageInput) ([]*ThreadMessage, error) {
	if err := ts.checkRoom(field, t.ID, t.NextSeq, len(msgs)); err != nil {
		return nil, err
	}
	out := make([]*ThreadMessage, 0, len(msgs))
	err := ts.putMessages(ctx, tx, t, msgs, func(m *ThreadMessage) { out = append(out, m) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// putMessages is appendTx after its room check, handing each stored
// message to stored when it is not nil (a run, which answers with none of
// them, passes nil and builds no list).
func (ts *Threads) putMessages(ctx context.Context, tx Tx, t *Thread, msgs []ThreadMessageInput, stored func(*ThreadMessage)) error {
	if err := ts.materialize(ctx, tx, t, nil); err != nil {
		return err
	}
	now := NowFrom(ctx, ts.now).Unix()
	for _, in := range msgs {
		m := buildThreadMessage(t.ID, NewPrefixedID(ctx, "msg_", 24), now, in)
		if err := putNew(tx, msgKey(t, t.NextSeq), m); err != nil {
			return err
		}
		t.NextSeq++
		if stored != nil {
			stored(m)
		}
	}
	if t.unwritten {
		t.unwritten = false
		return putNew(tx, threadKey(t.Owner, t.ID), t)
	}
	return tx.Put(threadKey(t.Owner, t.ID), t)
}

// buildThreadMessage is the stored form of an appended message; id is
// the message's whole id ("msg_" and its random part).
func buildThreadMessage(threadID, id string, now int64, in ThreadMessageInput) *ThreadMessage {
	m := &ThreadMessage{
		ID: id, ThreadID: threadID, CreatedAt: now, Role: in.Role,
		Content: in.Content, ToolCalls: in.ToolCalls, Attachments: in.Attachments, Metadata: in.Metadata,
	}
	// Copies, so that in (a large value) does not move to the heap, made
	// inside the branches: a copy declared in the if statement would be
	// moved to the heap, and allocated, for every message.
	if in.Name != "" {
		name := in.Name
		m.Name = &name
	}
	if in.ToolCallID != "" {
		callID := in.ToolCallID
		m.ToolCallID = &callID
	}
	normalizeThreadMessage(m)
	for i := range m.ToolCalls {
		m.ToolCalls[i].Index = nil
	}
	return m
}

// normalizeThreadMessage gives the list-valued fields their [] / {} defaults.
func normalizeThreadMessage(m *ThreadMessage) {
	if m.ToolCalls == nil {
		m.ToolCalls = []ToolCall{}
	}
	if m.Attachments == nil {
		m.Attachments = []json.RawMessage{}
	}
	if m.Metadata == nil {
		m.Metadata = map[string]string{}
	}
}

// ThreadPage is one page of an owner's threads, newest first. Next is the
// cursor of the following page ("" on the last page).
type ThreadPage struct {
	Threads []*Thread
	Next    string
}

// List returns an owner's threads, newest first, limit per page (default
// 20, at most 100), starting after the cursor of a previous page.
func (ts *Threads) List(ctx context.Context, owner string, limit int, cursor string) (*ThreadPage, error) {
	if limit <= 0 {
		limit = defThreadListLimit
	}
	if limit > maxThreadListLimit {
		limit = maxThreadListLimit
	}
	prefix := prefixThreadIdx + owner + "/"
	after := ""
	if cursor != "" {
		if strings.ContainsAny(cursor, "\x00") {
			return nil, FieldError("cursor", "is not a valid cursor")
		}
		after = prefix + cursor
	}
	page := &ThreadPage{Threads: []*Thread{}}
	last := ""
	err := ts.store.View(ctx, func(tx Tx) error {
		return tx.Scan(prefix, after, func(k string, _ []byte) error {
			if len(page.Threads) == limit {
				page.Next = last
				return ErrStopScan
			}
			id := k[strings.LastIndexByte(k, '/')+1:]
			t, err := getThread(tx, owner, id)
			if IsNotFound(err) {
				return nil
			}
			if err != nil {
				return err
			}
			page.Threads = append(page.Threads, t)
			last = strings.TrimPrefix(k, prefix)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return page, nil
}
