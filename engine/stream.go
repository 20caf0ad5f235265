package engine

import (
	"context"
	"errors"
	"io"
	"sort"
	"strings"
	"time"
)

// RunStream is a streamed run. Recv yields chunks normalised to what the
// langbase SDK's stream runner requires (docs/pipes-and-threads.md#runs): one constant
// chunk id, role "assistant" in the first delta of each choice, a "type"
// on every new tool call, choices always an array, and a final chunk with
// a finish_reason even when the upstream ended without one. At the end of
// the stream the thread is written before Recv returns io.EOF, so a write
// failure can still be reported to the client.
type RunStream struct {
	pr       *PreparedRun
	ctx      context.Context
	up       ChatStream
	id       string
	created  int64
	model    string
	roleSent choiceSet
	finished choiceSet
	pending  []*ChatChunk
	done     bool
	acc      accumulator
}

// Stream starts the model call. An error here comes before any output.
func (pr *PreparedRun) Stream(ctx context.Context) (*RunStream, error) {
	pr.stream = true
	ctx = pr.noteDeployment(ctx)
	ctx = pr.guardCtx(ctx)
	up, err := pr.chat.ChatStream(ctx, pr.Request)
	pr.Ref = pr.answered()
	if err != nil {
		pr.finish(ctx, runResult{err: err, streamed: true})
		return nil, err
	}
	return &RunStream{pr: pr, ctx: ctx, up: up, created: pr.created.Unix(), model: pr.Ref.Model}, nil
}

// Recv returns the next chunk, io.EOF after the last one, or an error that
// ended the stream (the run is then already recorded).
func (s *RunStream) Recv() (*ChatChunk, error) {
	for {
		if len(s.pending) > 0 {
			c := s.pending[0]
			s.pending = s.pending[1:]
			return c, nil
		}
		if s.done {
			return nil, io.EOF
		}
		c, err := s.up.Recv()
		if errors.Is(err, io.EOF) {
			s.done = true
			s.pending = s.finals()
			if err := s.pr.finish(s.ctx, s.result(nil)); err != nil {
				s.pending = nil
				return nil, err
			}
			continue
		}
		if err != nil {
			s.done = true
			if s.ctx.Err() != nil {
				err = errors.Join(ErrClientGone, err)
			}
			s.pr.finish(s.ctx, s.result(err))
			return nil, err
		}
		if c == nil {
			continue
		}
		s.normalize(c)
		if s.acc.firstToken == 0 && s.acc.hasOutput() {
			s.acc.firstToken = s.pr.r.now().Sub(s.pr.start)
		}
		return c, nil
	}
}

// Close ends the stream early (cause says why, e.g. ErrClientGone) or
// after the end; it records the run if Recv has not, and releases the
// upstream connection.
func (s *RunStream) Close(cause error) {
	if !s.done {
		if cause == nil {
			cause = ErrClientGone
		}
		s.done = true
		s.pr.finish(s.ctx, s.result(cause))
	}
	s.up.Close()
}

func (s *RunStream) result(err error) runResult {
	return runResult{text: s.acc.text.String(), toolCalls: s.acc.calls(), usage: s.acc.usage, err: err,
		firstToken: s.acc.firstToken, streamed: true}
}

func (s *RunStream) normalize(c *ChatChunk) {
	if s.id == "" {
		s.id = c.ID
		if s.id == "" {
			s.id = "chatcmpl-" + NewID(s.ctx, 24)
		}
	}
	if c.Model != "" && s.model == s.pr.Ref.Model {
		s.model = c.Model
	}
	c.ID, c.Object, c.Created, c.Model = s.id, "chat.completion.chunk", s.created, s.model
	if c.Choices == nil {
		c.Choices = []ChunkChoice{}
	}
	if c.Usage != nil {
		u := *c.Usage
		s.acc.usage = &u
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if !s.roleSent.has(ch.Index) {
			s.roleSent.add(ch.Index)
			ch.Delta.Role = "assistant"
		}
		for j := range ch.Delta.ToolCalls {
			tc := &ch.Delta.ToolCalls[j]
			if tc.Index == nil {
				n := j
				tc.Index = &n
			}
			if tc.ID != "" && tc.Type == "" {
				tc.Type = "function"
			}
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			s.finished.add(ch.Index)
		}
		if ch.Index == 0 {
			s.acc.add(ch)
		}
	}
}

// finals are the chunks that close choices the upstream left open.
func (s *RunStream) finals() []*ChatChunk {
	var idx []int
	for _, i := range s.roleSent.indexes() {
		if !s.finished.has(i) {
			idx = append(idx, i)
		}
	}
	sort.Ints(idx)
	if s.roleSent.empty() {
		empty := ""
		stop := "stop"
		return []*ChatChunk{s.chunk(ChunkChoice{Delta: Delta{Role: "assistant", Content: &empty}, FinishReason: &stop})}
	}
	var out []*ChatChunk
	for _, i := range idx {
		reason := "stop"
		if i == 0 && len(s.acc.order) > 0 {
			reason = "tool_calls"
		}
		out = append(out, s.chunk(ChunkChoice{Index: i, FinishReason: &reason}))
	}
	return out
}

func (s *RunStream) chunk(ch ChunkChoice) *ChatChunk {
	if s.id == "" {
		s.id = "chatcmpl-" + NewID(s.ctx, 24)
	}
	return &ChatChunk{ID: s.id, Object: "chat.completion.chunk", Created: s.created, Model: s.model, Choices: []ChunkChoice{ch}}
}

// AnswerTextSize is the room a stream reserves for its answer text at
// its first text delta, so that a short answer is collected in one
// allocation rather than one each time the text doubles.
const AnswerTextSize = 256

// accumulator rebuilds the assistant message of choice 0 from deltas.
type accumulator struct {
	text       strings.Builder
	byIndex    map[int]*ToolCall
	order      []int
	usage      *Usage
	firstToken time.Duration
}

func (a *accumulator) hasOutput() bool { return a.text.Len() > 0 || len(a.order) > 0 }

func (a *accumulator) add(ch *ChunkChoice) {
	if ch.Delta.Content != nil && *ch.Delta.Content != "" {
		if a.text.Cap() == 0 {
			a.text.Grow(AnswerTextSize)
		}
		a.text.WriteString(*ch.Delta.Content)
	}
	for _, d := range ch.Delta.ToolCalls {
		if a.byIndex == nil {
			a.byIndex = map[int]*ToolCall{}
		}
		i := *d.Index
		tc, ok := a.byIndex[i]
		if !ok {
			tc = &ToolCall{Type: "function"}
			a.byIndex[i] = tc
			a.order = append(a.order, i)
		}
		tc.Merge(d)
	}
}

// Merge adds one stream delta of a tool call to the call assembled so
// far: the id, type and provider data are replaced when the delta carries
// them, the name and the JSON-text arguments are appended.
func (tc *ToolCall) Merge(d ToolCall) {
	if d.ID != "" {
		tc.ID = d.ID
	}
	if d.Type != "" {
		tc.Type = d.Type
	}
	if d.Function.Name != "" {
		tc.Function.Name += d.Function.Name
	}
	tc.Function.Arguments += d.Function.Arguments
	if len(d.ExtraContent) > 0 {
		tc.ExtraContent = d.ExtraContent
	}
}

func (a *accumulator) calls() []ToolCall {
	if len(a.order) == 0 {
		return nil
	}
	idx := append([]int(nil), a.order...)
	sort.Ints(idx)
	out := make([]ToolCall, 0, len(idx))
	for _, i := range idx {
		out = append(out, *a.byIndex[i])
	}
	return out
}
