package server

import (
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// msgStream writes canonical chunks as the Messages API's named SSE
// events: message_start and ping with the first chunk, one content block
// (content_block_start, _delta, _stop) per run of text, per tool call and
// per thinking block, then message_delta (stop_reason and usage) and
// message_stop. Each event goes out as soon as its chunk arrives: text,
// tool arguments and reasoning as one delta per upstream delta.
type msgStream struct {
	w     *eventWriter
	id    string
	model string
	// begun is set once message_start is written.
	begun bool
	// open is the index of the open content block, -1 when none;
	// openText says whether it is a text block.
	open     int
	openText bool
	// openThink is the reasoning block number of the open block when it
	// is a streamed thinking block, else -1; streamed is set once
	// reasoning came as deltas, so the whole blocks that follow at the
	// end of the stream are not written again.
	openThink int
	streamed  bool
	next      int
	// tools maps a chunk's tool-call index to its block index.
	tools   map[int]int
	finish  string
	stopSeq string
	usage   *engine.Usage
}

// event writes one named event without flushing it, its type first.
func (m *msgStream) event(name string, v map[string]any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	frame := make([]byte, 0, len(b)+2*len(name)+32)
	frame = append(frame, "event: "...)
	frame = append(frame, name...)
	frame = append(frame, "\ndata: {\"type\":\""...)
	frame = append(frame, name...)
	frame = append(frame, '"')
	if len(b) > 2 {
		frame = append(frame, ',')
	}
	frame = append(frame, b[1:]...)
	frame = append(frame, "\n\n"...)
	return m.w.put(frame)
}

// begin writes message_start and a ping, once.
func (m *msgStream) begin() error {
	if m.begun {
		return nil
	}
	m.begun = true
	msg := map[string]any{"id": m.id, "type": "message", "role": "assistant", "model": m.model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": messagesUsage{}}
	if err := m.event("message_start", map[string]any{"message": msg}); err != nil {
		return err
	}
	return m.event("ping", map[string]any{})
}

// closeBlock ends the open block, if any.
func (m *msgStream) closeBlock() error {
	if m.open < 0 {
		return nil
	}
	i := m.open
	m.open, m.openText, m.openThink = -1, false, -1
	return m.event("content_block_stop", map[string]any{"index": i})
}

// startBlock closes the open block and starts block b.
func (m *msgStream) startBlock(b any, text bool) (int, error) {
	if err := m.closeBlock(); err != nil {
		return 0, err
	}
	i := m.next
	m.next++
	m.open, m.openText = i, text
	return i, m.event("content_block_start", map[string]any{"index": i, "content_block": b})
}

func (m *msgStream) delta(i int, d map[string]any) error {
	return m.event("content_block_delta", map[string]any{"index": i, "delta": d})
}

// chunk writes the events of one chunk.
func (m *msgStream) chunk(c *engine.ChatChunk) error {
	if err := m.begin(); err != nil {
		return err
	}
	if c.Usage != nil {
		u := *c.Usage
		m.usage = &u
	}
	if len(c.Choices) == 0 {
		return nil
	}
	ch := c.Choices[0]
	if ch.FinishReason != nil && *ch.FinishReason != "" {
		m.finish, m.stopSeq = *ch.FinishReason, ch.StopSequence
	}
	if r := ch.Delta.Reasoning; r != nil {
		if err := m.reasoning(r); err != nil {
			return err
		}
	}
	if t := ch.Delta.Content; t != nil && *t != "" {
		if !m.openText {
			if _, err := m.startBlock(textBlock{Type: "text", Text: ""}, true); err != nil {
				return err
			}
		}
		if err := m.delta(m.open, map[string]any{"type": "text_delta", "text": *t}); err != nil {
			return err
		}
	}
	for _, tc := range ch.Delta.ToolCalls {
		if err := m.toolCall(tc); err != nil {
			return err
		}
	}
	for _, raw := range ch.Delta.Thinking {
		if err := m.thinkingBlock(raw); err != nil {
			return err
		}
	}
	return nil
}

// reasoning writes a streamed piece of reasoning: a thinking block starts
// with its first piece, then thinking_delta and signature_delta as the
// pieces come; a redacted block is written whole.
func (m *msgStream) reasoning(r *engine.ReasoningDelta) error {
	m.streamed = true
	if len(r.Redacted) > 0 {
		if _, err := m.startBlock(r.Redacted, false); err != nil {
			return err
		}
		return m.closeBlock()
	}
	if m.open < 0 || m.openThink != r.Block {
		if _, err := m.startBlock(map[string]string{"type": "thinking", "thinking": "", "signature": ""}, false); err != nil {
			return err
		}
		m.openThink = r.Block
	}
	if r.Text != "" {
		if err := m.delta(m.open, map[string]any{"type": "thinking_delta", "thinking": r.Text}); err != nil {
			return err
		}
	}
	if r.Signature != "" {
		return m.delta(m.open, map[string]any{"type": "signature_delta", "signature": r.Signature})
	}
	return nil
}

// toolCall writes a tool-call delta: a new tool_use block for a new
// call, input_json_delta for its arguments, and thinking blocks for the
// thinking its extra_content carries.
func (m *msgStream) toolCall(tc engine.ToolCall) error {
	idx := 0
	if tc.Index != nil {
		idx = *tc.Index
	}
	thinking, rest := splitExtra(tc.ExtraContent)
	b, ok := m.tools[idx]
	if !ok && (tc.ID != "" || tc.Function.Name != "" || tc.Function.Arguments != "") {
		var err error
		id := toolUseID(m.id, idx, tc, rest)
		if b, err = m.startBlock(toolUseBlock{Type: "tool_use", ID: id, Name: tc.Function.Name, Input: json.RawMessage(`{}`)}, false); err != nil {
			return err
		}
		m.tools[idx], ok = b, true
	}
	if ok && tc.Function.Arguments != "" {
		if err := m.delta(b, map[string]any{"type": "input_json_delta", "partial_json": tc.Function.Arguments}); err != nil {
			return err
		}
	}
	for _, raw := range thinking {
		if err := m.thinkingBlock(raw); err != nil {
			return err
		}
	}
	return nil
}

// thinkingBlock writes one whole thinking (or redacted_thinking) block,
// unless the stream's reasoning came as deltas.
func (m *msgStream) thinkingBlock(raw json.RawMessage) error {
	if m.streamed {
		return nil
	}
	var t struct {
		Type      string `json:"type"`
		Thinking  string `json:"thinking"`
		Signature string `json:"signature"`
	}
	if json.Unmarshal(raw, &t) != nil {
		return nil
	}
	if t.Type != "thinking" {
		if _, err := m.startBlock(raw, false); err != nil {
			return err
		}
		return m.closeBlock()
	}
	i, err := m.startBlock(map[string]string{"type": "thinking", "thinking": "", "signature": ""}, false)
	if err != nil {
		return err
	}
	if err := m.delta(i, map[string]any{"type": "thinking_delta", "thinking": t.Thinking}); err != nil {
		return err
	}
	if err := m.delta(i, map[string]any{"type": "signature_delta", "signature": t.Signature}); err != nil {
		return err
	}
	return m.closeBlock()
}

// end writes message_delta and message_stop.
func (m *msgStream) end() error {
	if err := m.begin(); err != nil {
		return err
	}
	if err := m.closeBlock(); err != nil {
		return err
	}
	reason := stopReasonOf(m.finish, m.stopSeq)
	if len(m.tools) > 0 && reason == "end_turn" {
		reason = "tool_use"
	}
	var seq any
	if reason == "stop_sequence" {
		seq = m.stopSeq
	}
	if err := m.event("message_delta", map[string]any{"delta": map[string]any{"stop_reason": reason, "stop_sequence": seq},
		"usage": usageOf(m.usage)}); err != nil {
		return err
	}
	if err := m.event("message_stop", map[string]any{}); err != nil {
		return err
	}
	return m.w.Flush()
}

// messagesRelay streams rs to the client as Messages events. An error
// after the first event is an error event; before it, the caller answers
// out.err as a plain error.
func (s *Server) messagesRelay(c echo.Context, rs chunkStream, model string) (out relayOutcome) {
	ctx := c.Request().Context()
	w := newSSEWriter(c)
	m := &msgStream{w: w, model: model, open: -1, openThink: -1, tools: map[int]int{}}
	start := time.Now()
	defer func() { out.started = w.Started() }()
	for {
		if err := w.flushUnlessReady(rs); err != nil {
			out.err = errors.Join(engine.ErrClientGone, err)
			rs.Close(out.err)
			return out
		}
		chunk, err := rs.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			rs.Close(err)
			out.err = err
			if ctx.Err() != nil {
				out.err = errors.Join(engine.ErrClientGone, err)
				return out
			}
			if w.Started() {
				s.messagesStreamError(c, m, err)
			}
			return out
		}
		if out.first == 0 {
			out.first = max(time.Since(start), time.Nanosecond)
			m.id = messageID(ctx, chunk.ID)
		}
		if err := m.chunk(chunk); err != nil {
			out.err = errors.Join(engine.ErrClientGone, err)
			rs.Close(out.err)
			return out
		}
	}
	rs.Close(nil)
	if m.id == "" {
		m.id = messageID(ctx, "")
	}
	out.usage = m.usage
	_ = m.end()
	return out
}

// messagesStreamError writes an error event inside a started stream.
func (s *Server) messagesStreamError(c echo.Context, m *msgStream, err error) {
	ee, status := toEngineError(err)
	log := s.log.With("request_id", headerValue(c.Response().Header(), HeaderRequestID), "path", c.Request().URL.Path)
	if status >= 500 {
		log.Error("stream failed", "code", ee.Code, "err", err)
	} else {
		log.Info("stream stopped", "code", ee.Code, "err", err)
	}
	body, _ := anthropicErrorBody(ee, status)
	_ = m.event("error", map[string]any{"error": body.Error})
	_ = m.w.Flush()
}
