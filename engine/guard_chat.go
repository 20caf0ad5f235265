package engine

import (
	"context"

	"github.com/hearth-dev/hearth/engine/guard"
)

// GuardProviders wraps a provider registry so every chat call, from every
// surface (pipes, the agent, the OpenAI, Responses and Messages APIs), is
// checked by the guardrails: the request's user messages (input) and tool
// results (context) before they leave, the answer before it is returned,
// streamed answers through a StreamRedactor. The policy is the pipe run's
// (set by the Runner, which checks input and retrieved chunks itself), or
// else the server's merged with the calling key's. A nil gs returns p.
func GuardProviders(p Providers, gs *Guards) Providers {
	if p == nil || gs == nil {
		return p
	}
	return &guardedProviders{Providers: p, gs: gs}
}

type guardedProviders struct {
	Providers
	gs *Guards
}

func (gp *guardedProviders) ChatModel(ref ModelRef) (ChatModel, error) {
	cm, err := gp.Providers.ChatModel(ref)
	if err != nil {
		return nil, err
	}
	return &guardedChat{next: cm, gs: gp.gs}, nil
}

// CostOf prices u with the wrapped providers.
func (gp *guardedProviders) CostOf(ref ModelRef, u *Usage) (float64, bool) {
	return costOf(gp.Providers, ref, u)
}

// ImageCost passes through to the wrapped providers.
func (gp *guardedProviders) ImageCost(ref ModelRef, n int) (float64, bool) {
	return imageCost(gp.Providers, ref, n)
}

// Reranker passes through to the wrapped providers.
func (gp *guardedProviders) Reranker(ref ModelRef) (Reranker, error) {
	return rerankerOf(gp.Providers, ref)
}

type guardedChat struct {
	next ChatModel
	gs   *Guards
}

// policy returns the call's compiled policy, its event sink and whether
// the input and context are still to be checked.
func (c *guardedChat) policy(ctx context.Context) (*guard.Guard, *guardSink, bool) {
	if run := guardRunOf(ctx); run != nil {
		return run.g, c.gs.sink(run.rep), false
	}
	var keyPolicy *guard.Policy
	if p := PrincipalOf(ctx); p != nil && p.Scope != nil {
		keyPolicy = p.Scope.Guard
	}
	g := c.gs.For(keyPolicy)
	if g == nil {
		return nil, nil, false
	}
	return g, c.gs.sink(GuardReportOf(ctx)), true
}

func (c *guardedChat) Chat(ctx context.Context, req *ChatRequest) (*ChatResponse, error) {
	g, sink, checkIn := c.policy(ctx)
	if g == nil {
		return c.next.Chat(ctx, req)
	}
	req, err := guardRequest(ctx, g, sink, req, checkIn)
	if err != nil {
		return nil, err
	}
	resp, err := c.next.Chat(ctx, req)
	if err != nil || !g.Checks(guard.StageOutput) {
		return resp, err
	}
	for i := range resp.Choices {
		m := &resp.Choices[i].Message
		if m.Content != nil {
			out, _, err := g.Check(ctx, guard.StageOutput, *m.Content, sink)
			if err != nil {
				return nil, guardError(err)
			}
			m.Content = &out
		}
		for j := range m.ToolCalls {
			f := &m.ToolCalls[j].Function
			if f.Arguments, _, err = g.Check(ctx, guard.StageOutput, f.Arguments, sink); err != nil {
				return nil, guardError(err)
			}
		}
	}
	return resp, nil
}

func (c *guardedChat) ChatStream(ctx context.Context, req *ChatRequest) (ChatStream, error) {
	g, sink, checkIn := c.policy(ctx)
	if g == nil {
		return c.next.ChatStream(ctx, req)
	}
	req, err := guardRequest(ctx, g, sink, req, checkIn)
	if err != nil {
		return nil, err
	}
	st, err := c.next.ChatStream(ctx, req)
	if err != nil || !g.Checks(guard.StageOutput) {
		return st, err
	}
	return &guardedStream{next: st, g: g, sink: sink}, nil
}

// guardRequest returns req with its user messages checked as input and
// its tool results as context (when checkIn), on a copy of the messages:
// the caller's are not changed.
func guardRequest(ctx context.Context, g *guard.Guard, sink *guardSink, req *ChatRequest, checkIn bool) (*ChatRequest, error) {
	if !checkIn || (!g.Checks(guard.StageInput) && !g.Checks(guard.StageContext)) {
		return req, nil
	}
	msgs, err := guardMessages(ctx, g, sink, req.Messages)
	if err != nil {
		return nil, err
	}
	cp := *req
	cp.Messages = msgs
	return &cp, nil
}

// guardMessages checks user messages as input and tool messages as
// context, copying the list only when a text changes.
func guardMessages(ctx context.Context, g *guard.Guard, sink *guardSink, msgs []Message) ([]Message, error) {
	out := msgs
	for i, m := range msgs {
		stage := guard.StageInput
		switch m.Role {
		case "user":
		case "tool":
			stage = guard.StageContext
		default:
			continue
		}
		c, changed, err := guardContent(ctx, g, sink, stage, m.Content)
		if err != nil {
			return nil, err
		}
		if changed {
			if &out[0] == &msgs[0] {
				out = append([]Message(nil), msgs...)
			}
			out[i].Content = c
		}
	}
	return out, nil
}

// guardContent checks a message's text (its string or its text parts).
func guardContent(ctx context.Context, g *guard.Guard, sink *guardSink, stage string, c Content) (Content, bool, error) {
	if c.Parts == nil {
		out, _, err := g.Check(ctx, stage, c.Text, sink)
		if err != nil {
			return c, false, guardError(err)
		}
		if out == c.Text {
			return c, false, nil
		}
		c.Text = out
		return c, true, nil
	}
	var parts []ContentPart
	for i, p := range c.Parts {
		if p.Type != "text" || p.Text == "" {
			continue
		}
		out, _, err := g.Check(ctx, stage, p.Text, sink)
		if err != nil {
			return c, false, guardError(err)
		}
		if out != p.Text {
			if parts == nil {
				parts = append([]ContentPart(nil), c.Parts...)
			}
			parts[i].Text = out
		}
	}
	if parts == nil {
		return c, false, nil
	}
	c.Parts = parts
	return c, true, nil
}
