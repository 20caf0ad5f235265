package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// respEvent is one server-sent event of a streamed response
// (https://platform.openai.com/docs/api-reference/responses-streaming);
// each kind sets the fields it has.
type respEvent struct {
	Type           string          `json:"type"`
	SequenceNumber int             `json:"sequence_number"`
	Response       *responseObject `json:"response,omitempty"`
	OutputIndex    *int            `json:"output_index,omitempty"`
	ItemID         string          `json:"item_id,omitempty"`
	ContentIndex   *int            `json:"content_index,omitempty"`
	Item           any             `json:"item,omitempty"`
	SummaryIndex   *int            `json:"summary_index,omitempty"`
	Part           any             `json:"part,omitempty"`
	Delta          *string         `json:"delta,omitempty"`
	Text           *string         `json:"text,omitempty"`
	Name           string          `json:"name,omitempty"`
	Arguments      *string         `json:"arguments,omitempty"`
	Input          *string         `json:"input,omitempty"`
	Logprobs       *[]any          `json:"logprobs,omitempty"`
}

// streamCall is a function call item being streamed: index is its
// output index, n its place among the answer's tool calls.
type streamCall struct {
	item     outputCall
	index, n int
	args     strings.Builder
	done     bool
	// custom marks a custom tool's call: its free text is sent whole
	// when it ends, as it is streamed inside the JSON arguments.
	custom bool
}

// responseStreamer turns chat chunks into the Responses event sequence:
// each output item is added, streamed and done in turn, and the answer is
// assembled for the final response and the thread.
type responseStreamer struct {
	ctx   context.Context
	w     *eventWriter
	obj   *responseObject
	seq   int
	items []any
	// text is the open message item (nil when none is open) and its text.
	text    *outputMessage
	textIdx int
	textBuf strings.Builder
	calls   map[int]*streamCall
	cur     *streamCall
	tools   *toolMap
	// think is the open reasoning item (nil when none is open) and its
	// summary text so far.
	think    *outputReasoning
	thinkIdx int
	thinkBuf strings.Builder
	answer   engine.Message
	all      strings.Builder
	extra    map[string]json.RawMessage
	finish   string
	usage    *engine.Usage
}

// intp is a pointer to n, for the index fields events always carry.
func intp(n int) *int { return &n }

// send writes one event (event: line, data: line) and flushes it when
// flush is set; unflushed events leave with the next flush.
func (st *responseStreamer) send(ev *respEvent, flush bool) error {
	ev.SequenceNumber = st.seq
	st.seq++
	b, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	frame := make([]byte, 0, len(b)+len(ev.Type)+16)
	frame = append(append(append(append(frame, "event: "...), ev.Type...), "\ndata: "...), b...)
	frame = append(frame, "\n\n"...)
	if flush {
		return st.w.write(frame)
	}
	return st.w.put(frame)
}

// snapshot is the response as it stands, with the given status.
func (st *responseStreamer) snapshot(status string) *responseObject {
	o := *st.obj
	o.Status = status
	o.Output = append([]any{}, st.items...)
	return &o
}

// begin announces the response: created, then in progress.
func (st *responseStreamer) begin() error {
	if err := st.send(&respEvent{Type: "response.created", Response: st.snapshot("in_progress")}, false); err != nil {
		return err
	}
	return st.send(&respEvent{Type: "response.in_progress", Response: st.snapshot("in_progress")}, true)
}

// chunk turns one chat chunk into events.
func (st *responseStreamer) chunk(ch *engine.ChatChunk) error {
	if ch.Usage != nil {
		u := *ch.Usage
		st.usage = &u
	}
	if len(ch.Choices) == 0 {
		return nil
	}
	c := ch.Choices[0]
	if r := c.Delta.Reasoning; r != nil && r.Text != "" {
		if err := st.reasoningDelta(r.Text); err != nil {
			return err
		}
	}
	if d := c.Delta.Content; d != nil && *d != "" {
		if err := st.textDelta(*d); err != nil {
			return err
		}
	}
	for _, tc := range c.Delta.ToolCalls {
		if err := st.callDelta(tc); err != nil {
			return err
		}
	}
	if c.FinishReason != nil {
		st.finish = *c.FinishReason
	}
	return nil
}

// textDelta streams answer text, opening a message item when none is open.
func (st *responseStreamer) textDelta(d string) error {
	if st.text == nil {
		if err := st.openText(); err != nil {
			return err
		}
	}
	st.textBuf.WriteString(d)
	st.all.WriteString(d)
	return st.send(&respEvent{Type: "response.output_text.delta", ItemID: st.text.ID, OutputIndex: intp(st.textIdx), ContentIndex: intp(0), Delta: &d, Logprobs: &[]any{}}, false)
}

// reasoningDelta streams the model's reasoning as the summary text of a
// reasoning item, opening one when none is open.
func (st *responseStreamer) reasoningDelta(d string) error {
	if st.think == nil {
		if err := st.closeText(); err != nil {
			return err
		}
		if err := st.closeCall(); err != nil {
			return err
		}
		st.think = &outputReasoning{ID: engine.NewPrefixedID(st.ctx, "rs_", 24), Type: "reasoning", Summary: []any{}}
		st.thinkIdx = len(st.items)
		st.items = append(st.items, *st.think)
		st.thinkBuf.Reset()
		if err := st.send(&respEvent{Type: "response.output_item.added", OutputIndex: intp(st.thinkIdx), Item: *st.think}, false); err != nil {
			return err
		}
		part := summaryText{Type: "summary_text", Text: ""}
		if err := st.send(&respEvent{Type: "response.reasoning_summary_part.added", ItemID: st.think.ID, OutputIndex: intp(st.thinkIdx), SummaryIndex: intp(0), Part: part}, false); err != nil {
			return err
		}
	}
	st.thinkBuf.WriteString(d)
	return st.send(&respEvent{Type: "response.reasoning_summary_text.delta", ItemID: st.think.ID, OutputIndex: intp(st.thinkIdx), SummaryIndex: intp(0), Delta: &d}, false)
}

// closeReasoning ends the open reasoning item.
func (st *responseStreamer) closeReasoning() error {
	r, idx := st.think, st.thinkIdx
	if r == nil {
		return nil
	}
	st.think = nil
	text := st.thinkBuf.String()
	part := summaryText{Type: "summary_text", Text: text}
	for _, ev := range []*respEvent{
		{Type: "response.reasoning_summary_text.done", ItemID: r.ID, OutputIndex: intp(idx), SummaryIndex: intp(0), Text: &text},
		{Type: "response.reasoning_summary_part.done", ItemID: r.ID, OutputIndex: intp(idx), SummaryIndex: intp(0), Part: part},
	} {
		if err := st.send(ev, false); err != nil {
			return err
		}
	}
	r.Summary = []any{part}
	st.items[idx] = *r
	return st.send(&respEvent{Type: "response.output_item.done", OutputIndex: intp(idx), Item: *r}, false)
}

// openText adds a message item and its output_text part.
func (st *responseStreamer) openText() error {
	if err := st.closeReasoning(); err != nil {
		return err
	}
	if err := st.closeCall(); err != nil {
		return err
	}
	st.text = &outputMessage{ID: engine.NewPrefixedID(st.ctx, "msg_", 24), Type: "message", Status: "in_progress", Role: "assistant", Content: []outputText{}}
	st.textIdx = len(st.items)
	st.items = append(st.items, *st.text)
	st.textBuf.Reset()
	if err := st.send(&respEvent{Type: "response.output_item.added", OutputIndex: intp(st.textIdx), Item: *st.text}, false); err != nil {
		return err
	}
	part := newOutputText("")
	return st.send(&respEvent{Type: "response.content_part.added", ItemID: st.text.ID, OutputIndex: intp(st.textIdx), ContentIndex: intp(0), Part: part}, false)
}

// closeText ends the open message item.
func (st *responseStreamer) closeText() error {
	if st.text == nil {
		return nil
	}
	m, idx, text := st.text, st.textIdx, st.textBuf.String()
	st.text = nil
	part := newOutputText(text)
	for _, ev := range []*respEvent{
		{Type: "response.output_text.done", ItemID: m.ID, OutputIndex: intp(idx), ContentIndex: intp(0), Text: &text, Logprobs: &[]any{}},
		{Type: "response.content_part.done", ItemID: m.ID, OutputIndex: intp(idx), ContentIndex: intp(0), Part: part},
	} {
		if err := st.send(ev, false); err != nil {
			return err
		}
	}
	m.Status, m.Content = "completed", []outputText{part}
	st.items[idx] = *m
	return st.send(&respEvent{Type: "response.output_item.done", OutputIndex: intp(idx), Item: *m}, false)
}

// callDelta streams a tool call delta: a new call index opens a
// function_call item (ending the item open before it), arguments stream
// as deltas.
func (st *responseStreamer) callDelta(tc engine.ToolCall) error {
	i := 0
	if tc.Index != nil {
		i = *tc.Index
	}
	call, ok := st.calls[i]
	if !ok {
		if err := st.closeReasoning(); err != nil {
			return err
		}
		if err := st.closeText(); err != nil {
			return err
		}
		if err := st.closeCall(); err != nil {
			return err
		}
		call = &streamCall{index: len(st.items), n: len(st.answer.ToolCalls), custom: st.tools.isCustom(tc.Function.Name)}
		st.calls[i], st.cur = call, call
		st.answer.ToolCalls = append(st.answer.ToolCalls, engine.ToolCall{ID: tc.ID, Type: "function", Function: engine.FunctionCall{Name: tc.Function.Name}})
		added := st.tools.callItem(st.ctx, "", "in_progress", &st.answer.ToolCalls[call.n])
		switch it := added.(type) {
		case outputCall:
			call.item = it
		case outputCustomCall:
			call.item = outputCall{ID: it.ID, CallID: it.CallID, Name: it.Name}
		}
		st.items = append(st.items, added)
		if err := st.send(&respEvent{Type: "response.output_item.added", OutputIndex: intp(call.index), Item: added}, false); err != nil {
			return err
		}
	}
	if len(tc.ExtraContent) > 0 {
		st.answer.ToolCalls[call.n].ExtraContent = tc.ExtraContent
		st.extra[call.item.CallID] = tc.ExtraContent
	}
	if tc.Function.Arguments == "" {
		return nil
	}
	call.args.WriteString(tc.Function.Arguments)
	st.answer.ToolCalls[call.n].Function.Arguments = call.args.String()
	if call.done || call.custom {
		return nil
	}
	d := tc.Function.Arguments
	return st.send(&respEvent{Type: "response.function_call_arguments.delta", ItemID: call.item.ID, OutputIndex: intp(call.index), Delta: &d}, false)
}

// closeCall ends the open function_call item.
func (st *responseStreamer) closeCall() error {
	call := st.cur
	if call == nil {
		return nil
	}
	st.cur, call.done = nil, true
	args := call.args.String()
	tc := st.answer.ToolCalls[call.n]
	tc.Function.Arguments = args
	done := st.tools.callItem(st.ctx, call.item.ID, "completed", &tc)
	st.items[call.index] = done
	ev := &respEvent{Type: "response.function_call_arguments.done", ItemID: call.item.ID, OutputIndex: intp(call.index), Name: call.item.Name, Arguments: &args}
	if c, ok := done.(outputCustomCall); ok {
		ev = &respEvent{Type: "response.custom_tool_call_input.done", ItemID: c.ID, OutputIndex: intp(call.index), Input: &c.Input}
	}
	if err := st.send(ev, false); err != nil {
		return err
	}
	return st.send(&respEvent{Type: "response.output_item.done", OutputIndex: intp(call.index), Item: done}, false)
}

// end closes the open items, adds the reasoning item that carries the
// calls' provider state, and returns the finished response.
func (st *responseStreamer) end() (*responseObject, error) {
	if err := st.closeReasoning(); err != nil {
		return nil, err
	}
	if len(st.items) == 0 || (st.text == nil && st.all.Len() == 0 && len(st.answer.ToolCalls) == 0) {
		if err := st.openText(); err != nil {
			return nil, err
		}
	}
	if err := st.closeText(); err != nil {
		return nil, err
	}
	if err := st.closeCall(); err != nil {
		return nil, err
	}
	if len(st.extra) > 0 {
		r := outputReasoning{ID: engine.NewPrefixedID(st.ctx, "rs_", 24), Type: "reasoning", Summary: []any{}, EncryptedContent: encodeReasoning(st.extra)}
		idx := len(st.items)
		st.items = append(st.items, r)
		if err := st.send(&respEvent{Type: "response.output_item.added", OutputIndex: intp(idx), Item: r}, false); err != nil {
			return nil, err
		}
		if err := st.send(&respEvent{Type: "response.output_item.done", OutputIndex: intp(idx), Item: r}, false); err != nil {
			return nil, err
		}
	}
	st.answer.Role = "assistant"
	if st.all.Len() > 0 || len(st.answer.ToolCalls) == 0 {
		st.answer.Content = engine.TextContent(st.all.String())
	}
	status, details := finishStatus(st.finish)
	obj := st.snapshot(status)
	obj.IncompleteDetails = details
	obj.Usage = responsesUsage(st.usage)
	return obj, nil
}

// fail ends the stream with response.failed carrying the error.
func (st *responseStreamer) fail(err error) {
	ee, status := toEngineError(err)
	body := openAIErrorBody(ee, status)
	code := "server_error"
	if body.Error.Code != nil {
		code = *body.Error.Code
	}
	obj := st.snapshot("failed")
	obj.Error = &responseError{Code: code, Message: body.Error.Message}
	_ = st.send(&respEvent{Type: "response.failed", Response: obj}, true)
}

// streamResponse relays a chat stream as Responses events. Events are
// flushed whenever Hearth would wait for the upstream, so no delta is
// held back; the finished response is stored (when store is on) before
// response.completed is sent, so a GET right after it finds it.
func (s *Server) streamResponse(c echo.Context, rc *responsesCall, rs chunkStream, model string) error {
	ctx := c.Request().Context()
	st := &responseStreamer{ctx: ctx, w: newSSEWriter(c), obj: rc.object(model, nil), items: []any{}, calls: map[int]*streamCall{}, tools: rc.tools,
		extra: map[string]json.RawMessage{}}
	var out relayOutcome
	gone := func(err error) error {
		out.err = errors.Join(engine.ErrClientGone, err)
		rs.Close(out.err)
		s.recordResponse(ctx, rc, model, true, out, nil, nil)
		return nil
	}
	if rc.threadID != "" {
		setHeader(c.Response().Header(), HeaderThreadID, rc.threadID)
	}
	if err := st.begin(); err != nil {
		return gone(err)
	}
	for {
		if err := st.w.flushUnlessReady(rs); err != nil {
			return gone(err)
		}
		chunk, err := rs.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			rs.Close(err)
			out.err, out.usage = err, st.usage
			if ctx.Err() != nil {
				out.err = errors.Join(engine.ErrClientGone, err)
			} else {
				st.fail(err)
			}
			s.recordResponse(ctx, rc, model, true, out, nil, nil)
			return nil
		}
		if out.first == 0 {
			out.first = max(time.Since(rc.start), time.Nanosecond)
		}
		if err := st.chunk(chunk); err != nil {
			return gone(err)
		}
	}
	rs.Close(nil)
	obj, err := st.end()
	if err != nil {
		return gone(err)
	}
	out.usage = st.usage
	s.recordResponse(ctx, rc, model, true, out, nil, &st.answer)
	if err := s.saveResponse(ctx, nil, rc, obj, st.answer); err != nil {
		st.fail(err)
		return nil
	}
	typ := "response.completed"
	if obj.Status == "incomplete" {
		typ = "response.incomplete"
	}
	_ = st.send(&respEvent{Type: typ, Response: obj}, true)
	return nil
}
