package engine

import (
	"context"
	"fmt"
	"strings"
)

// What a pipe key reaches through a run
// (docs/security.md#what-a-pipe-key-can-reach). Pipe keys are shipped to
// browsers and mobile apps, so a run made with one may name only resources of
// its own pipe: the pipe itself, a subset of the pipe's memories, and threads
// created by runs of the pipe. User and org keys reach everything their owner
// has.

// checkRunMemory refuses run-time memories a pipe key may not use: with a
// pipe key, every memory named by the run must be one of the pipe's own.
func checkRunMemory(who *Principal, p *Pipe, refs []MemoryRef) error {
	if who == nil || who.Kind != KeyPipe {
		return nil
	}
	own := make(map[string]bool, len(p.Memory))
	names := make([]string, 0, len(p.Memory))
	for _, m := range p.Memory {
		own[m.Name] = true
		names = append(names, m.Name)
	}
	for i, m := range refs {
		if own[m.Name] {
			continue
		}
		field := fieldIndex("memory", i) + ".name"
		allowed := "it has none"
		if len(names) > 0 {
			allowed = "it has " + strings.Join(names, ", ")
		}
		return &Error{Code: CodeForbidden, Field: field, Message: field + ": a pipe key may use only its pipe's own memories (" +
			allowed + "); use a user or org key to run with other memories"}
	}
	return nil
}

// checkThreadScope refuses a thread a pipe key may not continue: one that no
// run of the key's pipe created. The answer is the same NOT_FOUND as for a
// missing thread, so a pipe key cannot probe which thread ids exist.
func checkThreadScope(who *Principal, p *Pipe, t *Thread) error {
	if who == nil || who.Kind != KeyPipe || t.PipeID == p.ID {
		return nil
	}
	return &Error{Code: CodeNotFound, Field: "threadId",
		Message: fmt.Sprintf("threadId: thread %q not found among the threads of this pipe (a pipe key continues only threads its pipe's runs created)", t.ID)}
}

// history loads the thread a run continues, checks the caller may use it,
// and returns its newest messages within the history budget as chat
// messages, oldest first.
func (ts *Threads) history(ctx context.Context, who *Principal, p *Pipe, id string) (*Thread, []Message, error) {
	var t *Thread
	var out []Message
	err := ts.store.View(ctx, func(tx Tx) error {
		var err error
		if t, err = ts.getThread(tx, p.Owner, id); err != nil {
			return err
		}
		if err := checkThreadScope(who, p, t); err != nil {
			return err
		}
		out, err = ts.newestHistory(tx, t)
		return err
	})
	return t, out, err
}
