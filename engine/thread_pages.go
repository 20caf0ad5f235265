package engine

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
)

// MaxMessagePageLimit is the most messages one page of a thread may ask for.
const MaxMessagePageLimit = 1000

// MessagePageOptions select one page of a thread's messages.
type MessagePageOptions struct {
	// Limit is the most messages of the page (1 to MaxMessagePageLimit).
	Limit int
	// MaxBytes, when > 0, ends the page early once its messages' stored
	// JSON reaches that size (a page always holds at least one message).
	MaxBytes int
	// Desc lists newest first instead of oldest first.
	Desc bool
	// Cursor continues after the last message of a previous page (its Next).
	Cursor string
}

// MessagePage is one page of a thread's messages. Next is the cursor of
// the following page in the same order ("" when no message follows).
type MessagePage struct {
	Messages []*ThreadMessage
	Next     string
}

// MessagePage returns a page of an owner's thread. Messages are read by
// sequence number, so a page costs what it returns, never the whole thread.
func (ts *Threads) MessagePage(ctx context.Context, owner, id string, o MessagePageOptions) (*MessagePage, error) {
	if o.Limit < 1 || o.Limit > MaxMessagePageLimit {
		return nil, FieldError("limit", "must be from 1 to %d", MaxMessagePageLimit)
	}
	start := int64(-1)
	if o.Cursor != "" {
		n, err := strconv.ParseInt(o.Cursor, 10, 64)
		if err != nil || n < 0 || o.Cursor != strconv.FormatInt(n, 10) {
			return nil, FieldError("cursor", "is not a valid cursor: pass the lb-next-cursor header of the previous page")
		}
		start = n
	}
	page := &MessagePage{Messages: []*ThreadMessage{}}
	err := ts.store.View(ctx, func(tx Tx) error {
		t, err := ts.getThread(tx, owner, id)
		if err != nil || t.virtual {
			return err
		}
		size, last := 0, int64(-1)
		add := func(seq int64, b []byte) (bool, error) {
			if len(page.Messages) == o.Limit || (o.MaxBytes > 0 && len(page.Messages) > 0 && size+len(b) > o.MaxBytes) {
				page.Next = strconv.FormatInt(last, 10)
				return false, nil
			}
			var m ThreadMessage
			if err := json.Unmarshal(b, &m); err != nil {
				return false, Wrap(err, CodeInternal, "corrupt record %s", msgKey(t, seq))
			}
			normalizeThreadMessage(&m)
			page.Messages = append(page.Messages, &m)
			size += len(b)
			last = seq
			return true, nil
		}
		if o.Desc {
			return scanDesc(tx, t, start, add)
		}
		return scanAsc(tx, t, start, add)
	})
	if err != nil {
		return nil, err
	}
	return page, nil
}

// scanAsc visits messages oldest first, after sequence number after (-1:
// from the first), until fn returns false.
func scanAsc(tx Tx, t *Thread, after int64, fn func(seq int64, b []byte) (bool, error)) error {
	from := ""
	if after >= 0 {
		from = msgKey(t, after)
	}
	prefix := msgPrefix(t)
	return tx.Scan(prefix, from, func(k string, b []byte) error {
		seq, err := strconv.ParseInt(k[len(prefix):], 10, 64)
		if err != nil {
			return Errorf(CodeInternal, "corrupt message key %s", k)
		}
		more, err := fn(seq, b)
		if err != nil {
			return err
		}
		if !more {
			return ErrStopScan
		}
		return nil
	})
}

// scanDesc visits messages newest first, before sequence number before
// (-1: from the newest), with point reads, until fn returns false.
func scanDesc(tx Tx, t *Thread, before int64, fn func(seq int64, b []byte) (bool, error)) error {
	seq := t.NextSeq - 1
	if before >= 0 && before-1 < seq {
		seq = before - 1
	}
	for ; seq >= 0; seq-- {
		b, err := tx.GetRaw(msgKey(t, seq))
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		more, err := fn(seq, b)
		if err != nil || !more {
			return err
		}
	}
	return nil
}
