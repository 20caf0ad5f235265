package engine

import (
	"context"

	"github.com/hearth-dev/hearth/engine/guard"
)

// guardInput resolves the run's guardrail policy (the server's, the key's
// and the pipe's) and checks the request's messages and variable values
// as input: it returns in, or a copy of it with the checked texts. The
// thread then stores what the model received.
func (pr *PreparedRun) guardInput(ctx context.Context, in *RunRequest) (*RunRequest, error) {
	var keyPolicy *guard.Policy
	if in.Principal.Scope != nil {
		keyPolicy = in.Principal.Scope.Guard
	}
	if pr.guard = pr.r.guards.For(keyPolicy, pr.Pipe.Guard); pr.guard == nil {
		return in, nil
	}
	if !pr.guard.Checks(guard.StageInput) && !pr.guard.Checks(guard.StageContext) {
		return in, nil
	}
	sink := pr.r.guards.sink(&pr.guardRep)
	msgs, err := guardMessages(ctx, pr.guard, sink, in.Messages)
	if err != nil {
		return nil, err
	}
	cp := *in
	cp.Messages = msgs
	if pr.guard.Checks(guard.StageInput) && len(in.Variables) > 0 {
		cp.Variables = make([]Variable, len(in.Variables))
		for i, v := range in.Variables {
			if v.Value, _, err = pr.guard.Check(ctx, guard.StageInput, v.Value, sink); err != nil {
				return nil, guardError(err)
			}
			cp.Variables[i] = v
		}
	}
	return &cp, nil
}

// guardChunks checks retrieved chunks as context: a chunk is redacted,
// or left out when its injection action is strip.
func (pr *PreparedRun) guardChunks(ctx context.Context, chunks []RAGChunk) ([]RAGChunk, error) {
	if len(chunks) == 0 || !pr.guard.Checks(guard.StageContext) {
		return chunks, nil
	}
	sink := pr.r.guards.sink(&pr.guardRep)
	out := make([]RAGChunk, 0, len(chunks))
	for _, c := range chunks {
		text, drop, err := pr.guard.Check(ctx, guard.StageContext, c.Text, sink)
		if err != nil {
			return nil, guardError(err)
		}
		if drop {
			continue
		}
		c.Text = text
		if c.Section != "" {
			if c.Section, drop, err = pr.guard.Check(ctx, guard.StageContext, c.Section, sink); err != nil {
				return nil, guardError(err)
			}
			if drop {
				continue
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// guardCtx returns the context of the run's model call: it carries the
// run's policy and report to the guarded providers (GuardProviders),
// which then check the answer only, the input being checked here.
func (pr *PreparedRun) guardCtx(ctx context.Context) context.Context {
	if pr.guard == nil {
		return ctx
	}
	return &guardRunCtx{Context: ctx, run: guardRun{g: pr.guard, rep: &pr.guardRep}}
}
