package engine

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// This file stores the answers of the OpenAI Responses API
// (/openai/v1/responses) that a client asked to keep (store: true). Each
// stored response names a span of a thread: its input messages, then its
// output. A response that continues another (previous_response_id) is
// appended to that response's thread when the previous response is the
// thread's last one; otherwise the conversation forks into a new thread
// that starts with a copy of the previous response's history. So threads
// read in order are always the conversation a response saw, and the
// studio and /v1/threads show them like any other thread.
//
// Key schema:
//
//	response/<owner>/<response id>   StoredResponse
//
// Records live in the shared store: every node of a cluster reads the
// responses the others stored, and the append-or-fork decision is taken
// inside the transaction that appends.

const prefixResponse = "response/"

func responseKey(owner, id string) string { return prefixResponse + owner + "/" + id }

// StoredResponse is one kept response of the Responses API.
type StoredResponse struct {
	ID       string `json:"id"`
	Owner    string `json:"owner"`
	ThreadID string `json:"thread_id"`
	// Start and End are the thread sequence numbers of the response's
	// messages: its input from Start, its output ending before End.
	Start int64 `json:"start"`
	End   int64 `json:"end"`
	// Body is the response object as it was answered; Input its input
	// items (with their ids), for GET .../input_items.
	Body      json.RawMessage `json:"body"`
	Input     json.RawMessage `json:"input"`
	CreatedAt time.Time       `json:"created_at"`
}

// Responses keeps stored responses beside the threads that hold their messages.
type Responses struct {
	threads *Threads
}

// NewResponses returns the response store over the thread service.
func NewResponses(threads *Threads) *Responses { return &Responses{threads: threads} }

// Get returns an owner's stored response; another owner's, a deleted or
// an unstored one is NOT_FOUND.
func (rs *Responses) Get(ctx context.Context, owner, id string) (*StoredResponse, error) {
	var rec StoredResponse
	err := rs.threads.store.View(ctx, func(tx Tx) error { return tx.Get(responseKey(owner, id), &rec) })
	if errors.Is(err, ErrNotFound) {
		return nil, &Error{Code: CodeNotFound, Message: "response " + quote(id) + " not found"}
	}
	if err != nil {
		return nil, err
	}
	return &rec, nil
}

// Delete removes a stored response. Its messages stay in its thread,
// which /v1/threads deletes.
func (rs *Responses) Delete(ctx context.Context, owner, id string) error {
	return rs.threads.store.Update(ctx, func(tx Tx) error {
		key := responseKey(owner, id)
		if ok, err := tx.Exists(key); err != nil {
			return err
		} else if !ok {
			return &Error{Code: CodeNotFound, Message: "response " + quote(id) + " not found"}
		}
		return tx.Delete(key)
	})
}

// History returns the conversation that response id ended: the messages
// of its thread up to the end of its output. field names the request
// field that asked, for the NOT_FOUND error.
func (rs *Responses) History(ctx context.Context, owner, id, field string) (*StoredResponse, []Message, error) {
	rec, err := rs.Get(ctx, owner, id)
	if err != nil {
		return nil, nil, &Error{Code: CodeNotFound, Field: field, Message: field + ": response " + quote(id) + " not found (it was not stored, or was deleted)"}
	}
	var msgs []Message
	err = rs.threads.store.View(ctx, func(tx Tx) error {
		t, err := rs.threads.getThread(tx, owner, rec.ThreadID)
		if err != nil {
			return err
		}
		return scanAsc(tx, t, -1, func(seq int64, b []byte) (bool, error) {
			if seq >= rec.End {
				return false, nil
			}
			var m ThreadMessage
			if err := json.Unmarshal(b, &m); err != nil {
				return false, Wrap(err, CodeInternal, "corrupt record %s", msgKey(t, seq))
			}
			msgs = append(msgs, m.ChatMessage())
			return true, nil
		})
	})
	if IsNotFound(err) {
		return nil, nil, &Error{Code: CodeNotFound, Field: field, Message: field + ": the thread of response " + quote(id) + " was deleted"}
	}
	if err != nil {
		return nil, nil, err
	}
	return rec, msgs, nil
}

// CheckInput refuses, before the model is called, an input message too
// large for a thread to store (ThreadLimits.MaxMessageBytes).
func (rs *Responses) CheckInput(msgs []Message) error {
	for i, m := range msgs {
		if err := rs.threads.checkSize("input", i, "", ThreadMessageInput{Message: m}); err != nil {
			return err
		}
	}
	return nil
}

// Save stores rec and appends msgs (the response's input, then its
// output) to a thread: prev's thread when prev (the response it
// continues, whose conversation is history) is still that thread's last
// message, else a new thread that starts with history. A new thread
// takes rec.ThreadID when the caller chose one (to announce it before the
// answer is complete). It sets rec's ThreadID, Start and End.
func (rs *Responses) Save(ctx context.Context, rec *StoredResponse, prev *StoredResponse, history, msgs []Message) error {
	ts := rs.threads
	in := make([]ThreadMessageInput, len(msgs))
	for i, m := range msgs {
		in[i] = ThreadMessageInput{Message: m}
	}
	return ts.store.Update(ctx, func(tx Tx) error {
		var t *Thread
		if prev != nil {
			cur, err := ts.getThread(tx, rec.Owner, prev.ThreadID)
			if err != nil && !IsNotFound(err) {
				return err
			}
			if cur != nil && !cur.virtual && cur.NextSeq == prev.End {
				t = cur
			}
		}
		if t == nil {
			id := rec.ThreadID
			if id == "" || prev != nil {
				id = NewUUID(ctx)
			}
			t = ts.newThread(ctx, rec.Owner, id, map[string]string{"openai_response_id": rec.ID})
			if err := tx.Put(threadIdxKey(rec.Owner, t), ""); err != nil {
				return err
			}
			if len(history) > 0 {
				old := make([]ThreadMessageInput, len(history))
				for i, m := range history {
					old[i] = ThreadMessageInput{Message: m}
				}
				if _, err := ts.appendTx(ctx, tx, t, "previous_response_id", old); err != nil {
					return err
				}
			}
		}
		rec.ThreadID, rec.Start = t.ID, t.NextSeq
		if _, err := ts.appendTx(ctx, tx, t, "input", in); err != nil {
			return err
		}
		rec.End = t.NextSeq
		return tx.Put(responseKey(rec.Owner, rec.ID), rec)
	})
}
