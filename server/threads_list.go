package server

import (
	"context"
	"unicode/utf8"

	"github.com/hearth-dev/hearth/engine"
)

// firstMessageRunes is how much of a thread's first message the thread
// list shows.
const firstMessageRunes = 160

// threadListItem is one entry of GET /v1/threads: the thread object plus
// what a list needs to tell threads apart. The extra fields are Hearth's
// (the langbase SDK ignores them): the pipe whose run created the thread
// (by its current name; "" for threads created through /v1/threads), the
// number of messages, and the start of the first user message.
type threadListItem struct {
	threadView
	MessageCount int64  `json:"message_count"`
	FirstMessage string `json:"first_message"`
}

// listItem builds a list entry: one short read of the thread's first
// messages, and the pipe's current name when it still exists (a renamed
// pipe keeps its id; a deleted one keeps the name it had).
func (s *Server) listItem(ctx context.Context, t *engine.Thread) (threadListItem, error) {
	it := threadListItem{threadView: viewThread(t), MessageCount: t.NextSeq}
	if err := s.pipeOf(ctx, &it.threadView); err != nil {
		return it, err
	}
	if t.NextSeq == 0 {
		return it, nil
	}
	page, err := s.deps.Threads.MessagePage(ctx, t.Owner, t.ID, engine.MessagePageOptions{Limit: 4})
	if err != nil {
		return it, err
	}
	for _, m := range page.Messages {
		if m.Role == "user" || it.FirstMessage == "" {
			it.FirstMessage = clipRunes(m.Content.String(), firstMessageRunes)
		}
		if m.Role == "user" {
			break
		}
	}
	return it, nil
}

// clipRunes cuts s to at most n runes, marking a cut with an ellipsis.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// pipeOf sets v.Pipe to the current name of the pipe that created the
// thread, when it still exists: a renamed pipe keeps its id, and a deleted
// one leaves the name it had.
func (s *Server) pipeOf(ctx context.Context, v *threadView) error {
	if v.PipeID == "" {
		return nil
	}
	p, err := s.deps.Pipes.GetByID(ctx, v.PipeID)
	switch {
	case err == nil:
		v.Pipe = p.Name
	case !engine.IsNotFound(err):
		return err
	}
	return nil
}
