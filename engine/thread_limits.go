package engine

import (
	"encoding/json"
	"fmt"
)

// ThreadLimits bound what one thread holds and how much of it a run reads
// (docs/security.md#request-and-thread-limits). They are enforced inside the
// transaction that appends, so they hold for every node sharing one
// database.
type ThreadLimits struct {
	// MaxMessages is the most messages one thread holds; appends past it
	// are refused (413) and a run on a full thread is refused before the
	// model is called.
	MaxMessages int64
	// MaxMessageBytes is the largest message a client may store, measured
	// as the message's stored JSON. Answers written by the model are
	// bounded by the pipe's max_tokens instead.
	MaxMessageBytes int
	// HistoryBytes is how much of a thread (the stored JSON of its newest
	// messages) a run sends the model as history; older messages stay in
	// the thread but are left out of the prompt.
	HistoryBytes int
}

// Defaults of ThreadLimits.
const (
	DefaultThreadMaxMessages     = 10_000
	DefaultThreadMaxMessageBytes = 512 << 10
	DefaultThreadHistoryBytes    = 1 << 20
)

func (l ThreadLimits) withDefaults() ThreadLimits {
	if l.MaxMessages <= 0 {
		l.MaxMessages = DefaultThreadMaxMessages
	}
	if l.MaxMessageBytes <= 0 {
		l.MaxMessageBytes = DefaultThreadMaxMessageBytes
	}
	if l.HistoryBytes <= 0 {
		l.HistoryBytes = DefaultThreadHistoryBytes
	}
	return l
}

// SetLimits replaces the thread limits (zero fields take the defaults).
// Call it before the service is used.
func (ts *Threads) SetLimits(l ThreadLimits) { ts.limits = l.withDefaults() }

// Limits returns the thread limits in force.
func (ts *Threads) Limits() ThreadLimits { return ts.limits }

// checkRoom refuses an append of n messages to a thread that already holds
// have of them, when the total would pass MaxMessages.
func (ts *Threads) checkRoom(field, id string, have int64, n int) error {
	if n == 0 || have+int64(n) <= ts.limits.MaxMessages {
		return nil
	}
	return &Error{Code: CodePayloadTooLarge, Field: field, Message: fmt.Sprintf(
		"%s: thread %q holds %d messages and %d more would pass the limit of %d messages per thread; start a new thread",
		field, id, have, n, ts.limits.MaxMessages)}
}

// sizingMessageID stands for a message id ("msg_" and 24 characters) while
// checkSizes measures a message.
const sizingMessageID = "msg_000000000000000000000000"

// checkSizes refuses client messages whose stored form would pass
// MaxMessageBytes, naming the first such message.
func (ts *Threads) checkSizes(field, threadID string, msgs []ThreadMessageInput) error {
	for i, in := range msgs {
		if err := ts.checkSize(field, i, threadID, in); err != nil {
			return err
		}
	}
	return nil
}

// checkSize refuses message i of field when its stored form would pass
// MaxMessageBytes. The stored form is measured with the encoder the store
// writes it with (encoding/json).
func (ts *Threads) checkSize(field string, i int, threadID string, in ThreadMessageInput) error {
	m := buildThreadMessage(threadID, sizingMessageID, 0, in)
	b, err := json.Marshal(m)
	if err != nil {
		return FieldError(fieldIndex(field, i), "cannot be stored: %v", err)
	}
	if len(b) > ts.limits.MaxMessageBytes {
		fi := fieldIndex(field, i)
		return &Error{Code: CodePayloadTooLarge, Field: fi, Message: fmt.Sprintf(
			"%s: the message is %d bytes stored; the limit is %d bytes per message", fi, len(b), ts.limits.MaxMessageBytes)}
	}
	return nil
}

// checkRunAppend checks, before the model is called, that a run's request
// messages and its answer fit in the thread (t is nil for a new thread).
func (ts *Threads) checkRunAppend(t *Thread, threadID string, msgs []Message) error {
	for i, m := range msgs {
		if err := ts.checkSize("messages", i, threadID, ThreadMessageInput{Message: m}); err != nil {
			return err
		}
	}
	var have int64
	if t != nil {
		have = t.NextSeq
	}
	return ts.checkRoom("threadId", threadID, have, len(msgs)+1)
}

// newestHistory reads a thread's newest messages backwards from its last
// sequence number, stopping at maxRunHistory messages or when the next
// older message would pass the HistoryBytes budget, so a run never loads
// more of a long thread than it sends. Tool results whose assistant
// message fell outside the budget are dropped: providers refuse a tool
// message without the call it answers.
func (ts *Threads) newestHistory(tx Tx, t *Thread) ([]Message, error) {
	budget := ts.limits.HistoryBytes
	var rev []Message
	err := scanDesc(tx, t, -1, func(seq int64, b []byte) (bool, error) {
		if len(rev) == maxRunHistory || len(b) > budget {
			return false, nil
		}
		budget -= len(b)
		var m ThreadMessage
		if err := json.Unmarshal(b, &m); err != nil {
			return false, Wrap(err, CodeInternal, "corrupt record %s", msgKey(t, seq))
		}
		rev = append(rev, m.ChatMessage())
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	for len(rev) > 0 && rev[len(rev)-1].Role == "tool" {
		rev = rev[:len(rev)-1]
	}
	out := make([]Message, len(rev))
	for i, m := range rev {
		out[len(rev)-1-i] = m
	}
	return out, nil
}
