package engine

import (
	"encoding/json"
	"regexp"
	"time"
)

// Thread is a stored conversation owned by a user or an org. Runs and the
// /v1/threads endpoints share it.
//
// Key schema:
//
//	thread/<owner>/<id>                  Thread
//	threadidx/<owner>/<inverted ns>/<id> -> "" (list index, newest first)
//	threadgone/<owner>/<id>              deleted signed thread (threads_virtual.go)
//	msg/<thread key>/<seq %016d>         ThreadMessage, chronological
//
// Messages are never deleted one by one, so their sequence numbers run
// from 0 to NextSeq-1: runs and newest-first pages read them backwards by
// key instead of scanning the whole thread (thread_pages.go).
//
// Messages live under the thread's random internal Key rather than its id,
// so a thread deleted in several transactions can never lend leftover
// messages to a new thread that reuses its id.
type Thread struct {
	ID        string            `json:"id"`
	Owner     string            `json:"owner"`
	Key       string            `json:"key"`
	CreatedAt time.Time         `json:"created_at"`
	Metadata  map[string]string `json:"metadata"`
	// NextSeq is the sequence number of the next message.
	NextSeq int64 `json:"next_seq"`
	// Pipe names the pipe whose run created the thread ("" for /v1/threads),
	// as it was named then; PipeID is that pipe's id, which survives renames.
	// Only threads whose PipeID is the key's pipe are open to a pipe key, so
	// threads created through /v1/threads, and threads stored by releases
	// that did not record PipeID, are closed to every pipe key.
	Pipe   string `json:"pipe,omitempty"`
	PipeID string `json:"pipe_id,omitempty"`
	// virtual: read from a signed id, not yet written (threads_virtual.go).
	virtual bool
	// unwritten: made in this transaction, its record not stored yet, so
	// its keys are new (putNew).
	unwritten bool
}

// ThreadMessage is one stored message of a thread, in the
// ThreadMessagesBaseResponse shape.
type ThreadMessage struct {
	ID          string            `json:"id"`
	ThreadID    string            `json:"thread_id"`
	CreatedAt   int64             `json:"created_at"`
	Role        string            `json:"role"`
	Content     Content           `json:"content"`
	ToolCallID  *string           `json:"tool_call_id"`
	ToolCalls   []ToolCall        `json:"tool_calls"`
	Name        *string           `json:"name"`
	Attachments []json.RawMessage `json:"attachments"`
	Metadata    map[string]string `json:"metadata"`
}

// ThreadMessageInput is a message to append: a chat message plus
// attachments and string metadata.
type ThreadMessageInput struct {
	Message
	Attachments []json.RawMessage `json:"attachments"`
	Metadata    map[string]string `json:"metadata"`
}

// ChatMessage returns the message as the model sees it.
func (m *ThreadMessage) ChatMessage() Message {
	out := Message{Role: m.Role, Content: m.Content, ToolCalls: m.ToolCalls}
	if m.Name != nil {
		out.Name = *m.Name
	}
	if m.ToolCallID != nil {
		out.ToolCallID = *m.ToolCallID
	}
	return out
}

var threadIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

const (
	maxMetadataPairs    = 50
	maxMetadataKey      = 64
	maxMetadataValue    = 512
	maxAppendMessages   = 1000
	maxAttachments      = 20
	maxRunHistory       = 1000
	maxThreadListLimit  = 100
	defThreadListLimit  = 20
	threadPartialKey    = "hearth_partial"
	threadFinishNoteKey = "hearth_note"
)

// ValidateThreadID checks a client-chosen thread id: 1-128 letters, digits,
// '.', '_' or '-', starting with a letter or digit (UUIDs qualify).
func ValidateThreadID(field, id string) error {
	if !threadIDRE.MatchString(id) {
		return FieldError(field, "%q is not a valid thread id: use 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit", id)
	}
	return nil
}

func validateMetadata(field string, md map[string]string) error {
	if len(md) > maxMetadataPairs {
		return FieldError(field, "at most %d pairs", maxMetadataPairs)
	}
	for k, v := range md {
		if k == "" || len(k) > maxMetadataKey {
			return FieldError(field, "keys must be 1-%d characters", maxMetadataKey)
		}
		if len(v) > maxMetadataValue {
			return FieldError(field+"."+k, "must be at most %d characters", maxMetadataValue)
		}
	}
	return nil
}

// ValidateThreadMessages checks messages to append to a thread.
func ValidateThreadMessages(field string, msgs []ThreadMessageInput) error {
	if len(msgs) > maxAppendMessages {
		return FieldError(field, "at most %d messages per request", maxAppendMessages)
	}
	for i, m := range msgs {
		fi := fieldIndex(field, i)
		if err := ValidateMessage(fi, m.Message); err != nil {
			return err
		}
		if len(m.Attachments) > maxAttachments {
			return FieldError(fi+".attachments", "at most %d attachments", maxAttachments)
		}
		if err := validateMetadata(fi+".metadata", m.Metadata); err != nil {
			return err
		}
	}
	return nil
}
