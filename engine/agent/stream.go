package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/telemetry"
)

// AgentStream is a streamed agent run, normalised to the chunk contract of
// the langbase SDK (docs/agent-and-mcp.md). Every step is a streamed model call:
// text deltas go to the client as they arrive (so the final answer streams
// token by token, and text the model writes before calling an MCP tool is
// shown too); tool-call deltas are collected. When a step ends asking only
// for MCP tools, they run and the next step starts. The client sees one
// completion: one id, the role in the first chunk, the caller-defined tool
// calls (if any) as complete deltas at the end, one finish_reason last,
// then a usage chunk summed over every step.
type AgentStream struct {
	ctx      context.Context
	maxSteps int
	model    engine.ChatModel
	chat     *engine.ChatRequest
	tb       *toolbox
	cur      engine.ChatStream

	step      int
	started   bool
	id        string
	created   int64
	modelName string
	sysFP     *string
	queue     []*engine.ChatChunk
	head      int // queue[head:] are still to be sent
	done      bool
	usage     engine.Usage
	usageSeen bool
	// rec, secrets, start, first and err feed the run log (runlog.go).
	rec     *runRecorder
	ref     engine.ModelRef
	secrets []string
	start   time.Time
	first   time.Duration
	err     error
	// held is an error of the model stream that Ready received.
	held error
	// span is the run's invoke_agent span, ended by Close (invoke_trace.go).
	span *telemetry.Span

	// chunks is the unused rest of the current block of chunks (chunk):
	// each chunk gets its own element, never reused.
	chunks []oneChoiceChunk

	// per step
	content strings.Builder
	calls   map[int]*engine.ToolCall
	// passed maps the upstream index of a call to a tool the caller
	// runs (not an MCP tool) to its index in the stream sent on: such
	// calls go out delta by delta as they arrive.
	passed map[int]int
	// deltas is set by StreamDeltas.
	deltas bool
	finish string
	// stopSeq and thinking are the finish chunk's StopSequence and
	// Delta.Thinking (fields off the OpenAI wire), passed on with it.
	stopSeq  string
	thinking []json.RawMessage
}

func newAgentStream(ctx context.Context, maxSteps int, model engine.ChatModel, run *agentRun, tb *toolbox, first engine.ChatStream) *AgentStream {
	run.secrets = [2]string{run.chat.APIKey, run.apiKey}
	return &AgentStream{ctx: ctx, maxSteps: maxSteps, model: model, chat: run.chat, tb: tb, cur: first, step: 1,
		rec: run.rec, secrets: run.secrets[:], start: runStart(run), ref: run.ref,
		modelName: run.ref.Model, created: engine.NowFrom(ctx, time.Now).Unix(), calls: map[int]*engine.ToolCall{}}
}

// Recv returns the next chunk for the client; io.EOF after the last.
func (s *AgentStream) Recv() (*engine.ChatChunk, error) {
	for {
		if s.head < len(s.queue) {
			c := s.queue[s.head]
			s.queue[s.head] = nil
			if s.head++; s.head == len(s.queue) {
				s.queue, s.head = s.queue[:0], 0 // drained: the array is reused
			}
			return c, nil
		}
		if s.done {
			return nil, io.EOF
		}
		c, err := s.recvCur()
		if errors.Is(err, io.EOF) {
			if err := s.endStep(); err != nil {
				s.done, s.err = true, err
				return nil, err
			}
			continue
		}
		if err != nil {
			s.done, s.err = true, err
			return nil, err
		}
		if c != nil {
			s.take(c)
		}
	}
}

// Close releases the current model stream and the MCP sessions and
// records the run; cause is why the stream ended early, if it did.
func (s *AgentStream) Close(cause error) {
	if cause == nil {
		cause = s.err
	}
	var usage *engine.Usage
	if s.usageSeen {
		usage = &s.usage
	}
	s.rec.finish(runOutcome{ref: s.ref, usage: usage, err: cause, first: s.first,
		messages: s.chat.Messages, completion: s.content.String(), secrets: s.secrets})
	endInvoke(s.span, s.ref, usage, cause)
	s.done = true
	if s.cur != nil {
		s.cur.Close()
	}
	s.tb.close()
}

// oneChoiceChunk is a chunk, its one choice and the strings the choice
// points to (the role chunk's empty text, a finish reason).
type oneChoiceChunk struct {
	chunk  engine.ChatChunk
	choice [1]engine.ChunkChoice
	text   string
	finish string
}

// oneChoiceBlock is how many chunks AgentStream allocates at a time.
const oneChoiceBlock = 8

// chunk returns a new chunk of delta d, with finish as its finish reason
// unless it is empty.
func (s *AgentStream) chunk(d engine.Delta, finish string) *engine.ChatChunk {
	return &s.newChunk(d, finish).chunk
}

// newChunk is chunk, with the storage around the chunk.
func (s *AgentStream) newChunk(d engine.Delta, finish string) *oneChoiceChunk {
	if len(s.chunks) == 0 {
		s.chunks = make([]oneChoiceChunk, oneChoiceBlock)
	}
	b := &s.chunks[0]
	s.chunks = s.chunks[1:]
	b.choice = [1]engine.ChunkChoice{{Index: 0, Delta: d}}
	if finish != "" {
		b.finish = finish
		b.choice[0].FinishReason = &b.finish
	}
	b.chunk = engine.ChatChunk{ID: s.id, Object: "chat.completion.chunk", Created: s.created, Model: s.modelName,
		SystemFingerprint: s.sysFP, Choices: b.choice[:]}
	return b
}

// begin takes the completion's id, model and time from the first upstream
// chunk (c may be nil when the upstream sent none) and queues the role chunk.
func (s *AgentStream) begin(c *engine.ChatChunk) {
	if s.started {
		return
	}
	s.started = true
	if c != nil {
		s.id, s.sysFP = c.ID, c.SystemFingerprint
		if c.Model != "" {
			s.modelName = c.Model
		}
		s.created = engine.CreatedFrom(s.ctx, c.Created, time.Unix(s.created, 0))
	}
	if s.id == "" {
		s.id = "chatcmpl-" + engine.NewID(s.ctx, 24)
	}
	b := s.newChunk(engine.Delta{Role: "assistant"}, "")
	b.choice[0].Delta.Content = &b.text // ""
	s.queue = append(s.queue, &b.chunk)
}

// take absorbs one upstream chunk: text is forwarded, tool calls, finish
// reason and usage are kept for the end of the step.
func (s *AgentStream) take(c *engine.ChatChunk) {
	s.begin(c)
	if c.Usage != nil {
		addUsage(&s.usage, *c.Usage)
		s.usageSeen = true
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		d := ch.Delta
		if (d.Content != nil && *d.Content != "") || (d.Refusal != nil && *d.Refusal != "") || len(d.Annotations) > 0 {
			if d.Content != nil && *d.Content != "" {
				if s.content.Cap() == 0 {
					s.content.Grow(engine.AnswerTextSize)
				}
				s.content.WriteString(*d.Content)
			}
			if s.first == 0 {
				s.first = time.Since(s.start)
			}
			s.queue = append(s.queue, s.chunk(engine.Delta{Content: d.Content, Refusal: d.Refusal, Annotations: d.Annotations}, ""))
		}
		if d.Reasoning != nil && s.deltas {
			s.queue = append(s.queue, s.chunk(engine.Delta{Reasoning: d.Reasoning}, ""))
		}
		for i, tc := range d.ToolCalls {
			idx := i
			if tc.Index != nil {
				idx = *tc.Index
			}
			acc := s.calls[idx]
			fresh := acc == nil
			if fresh {
				acc = &engine.ToolCall{}
				s.calls[idx] = acc
			}
			acc.Merge(tc)
			s.pass(idx, acc, tc)
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			s.finish = *ch.FinishReason
			s.stopSeq, s.thinking = ch.StopSequence, d.Thinking
		}
	}
}

// StreamDeltas makes the stream send on, as they arrive, the deltas of
// calls to tools the caller runs (MCP tool calls stay held for the end of
// their step) and the pieces of the model's reasoning (Delta.Reasoning);
// by default calls go out whole at the end of the step and reasoning
// only as whole blocks. Call it before the first Recv.
func (s *AgentStream) StreamDeltas() { s.deltas = true }

// pass sends on the delta tc of the call at upstream index idx (acc so
// far) when the caller runs that tool: the call's first delta, once its
// name is known, carries everything so far (an id is given to calls
// without one, as fillCallIDs would), later ones their own arguments.
// Calls to MCP tools stay held for the end of the step.
func (s *AgentStream) pass(idx int, acc *engine.ToolCall, tc engine.ToolCall) {
	out, ok := s.passed[idx]
	if !ok {
		if !s.deltas || acc.Function.Name == "" || s.tb.isMCP(acc.Function.Name) {
			return
		}
		if s.passed == nil {
			s.passed = map[int]int{}
		}
		out = len(s.passed)
		s.passed[idx] = out
		if acc.ID == "" {
			acc.ID = fmt.Sprintf("call_hearth_%d_%d", s.step, idx)
		}
		if acc.Type == "" {
			acc.Type = "function"
		}
		if s.first == 0 {
			s.first = time.Since(s.start)
		}
		s.queue = append(s.queue, s.chunk(engine.Delta{ToolCalls: []engine.ToolCall{{Index: &out, ID: acc.ID, Type: acc.Type,
			Function: engine.FunctionCall{Name: acc.Function.Name, Arguments: acc.Function.Arguments}, ExtraContent: acc.ExtraContent}}}, ""))
		return
	}
	if tc.Function.Arguments == "" && len(tc.ExtraContent) == 0 {
		return
	}
	s.queue = append(s.queue, s.chunk(engine.Delta{ToolCalls: []engine.ToolCall{{Index: &out,
		Function: engine.FunctionCall{Arguments: tc.Function.Arguments}, ExtraContent: tc.ExtraContent}}}, ""))
}

// stepCalls returns the step's tool calls in index order.
func (s *AgentStream) stepCalls() []engine.ToolCall {
	idx := make([]int, 0, len(s.calls))
	for i := range s.calls {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	calls := make([]engine.ToolCall, 0, len(idx))
	for _, i := range idx {
		calls = append(calls, *s.calls[i])
	}
	fillCallIDs(calls, s.step)
	return calls
}

// endStep finishes the stream, or runs the MCP tools and starts the next step.
func (s *AgentStream) endStep() error {
	s.cur.Close()
	s.begin(nil)
	mcpCalls, callerCalls := s.tb.split(s.stepCalls())
	if len(mcpCalls) == 0 || len(callerCalls) > 0 {
		s.finishStream(callerCalls)
		return nil
	}
	if s.step >= s.maxSteps {
		return stepLimitError(s.maxSteps)
	}
	results, err := s.tb.runTools(s.ctx, mcpCalls)
	if err != nil {
		return err
	}
	var content *string
	if text := s.content.String(); text != "" {
		content = &text
	}
	s.chat = nextStep(s.chat, content, mcpCalls, results)
	s.step++
	s.content.Reset()
	s.calls = map[int]*engine.ToolCall{}
	s.finish, s.stopSeq, s.thinking = "", "", nil
	next, err := s.model.ChatStream(s.ctx, s.chat)
	if err != nil {
		return err
	}
	s.cur = next
	return nil
}

// usageChunk is the final usage chunk and its usage in one allocation.
type usageChunk struct {
	chunk engine.ChatChunk
	usage engine.Usage
}

// finishStream queues the caller-defined tool calls, the finish chunk and
// the summed usage.
func (s *AgentStream) finishStream(callerCalls []engine.ToolCall) {
	n := len(s.passed)
	for _, c := range callerCalls {
		if s.wasPassed(c.ID) {
			continue
		}
		i := n
		n++
		s.queue = append(s.queue, s.chunk(engine.Delta{ToolCalls: []engine.ToolCall{{Index: &i, ID: c.ID, Type: c.Type,
			Function: engine.FunctionCall{Name: c.Function.Name, Arguments: c.Function.Arguments}, ExtraContent: c.ExtraContent}}}, ""))
	}
	finish := s.finish
	switch {
	case n > 0:
		finish = "tool_calls"
	case finish == "" || finish == "tool_calls":
		finish = "stop"
	}
	last := s.chunk(engine.Delta{Thinking: s.thinking}, finish)
	last.Choices[0].StopSequence = s.stopSeq
	s.queue = append(s.queue, last)
	if s.usageSeen {
		b := &usageChunk{usage: s.usage}
		b.chunk = engine.ChatChunk{ID: s.id, Object: "chat.completion.chunk", Created: s.created,
			Model: s.modelName, SystemFingerprint: s.sysFP, Choices: []engine.ChunkChoice{}, Usage: &b.usage}
		s.queue = append(s.queue, &b.chunk)
	}
	s.done = true
}

// wasPassed reports whether the call with id went out delta by delta.
func (s *AgentStream) wasPassed(id string) bool {
	for idx := range s.passed {
		if c := s.calls[idx]; c != nil && c.ID == id {
			return true
		}
	}
	return false
}
