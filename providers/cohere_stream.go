package providers

import (
	"context"
	"encoding/json"

	"github.com/hearth-dev/hearth/engine"
)

// ChatStream sends a streamed v2 /chat request and translates its events
// (message-start, content-delta, tool-call-start/delta/end, message-end;
// tool-plan and citation events are skipped). The stream is complete only
// at message-end.
func (c *Cohere) ChatStream(ctx context.Context, req *engine.ChatRequest) (engine.ChatStream, error) {
	body, err := marshalWithExtra(c.build(req, true), req.Extra)
	if err != nil {
		return nil, err
	}
	call, err := c.c.post(ctx, c.baseURL+"/chat", body, true, c.headers(req.APIKey))
	if err != nil {
		return nil, err
	}
	s := newSSEStream("cohere", call)
	t := &cohStreamState{s: s, model: req.Model, tool: -1}
	s.translate = t.translate
	return s, nil
}

type cohStreamState struct {
	s     *sseStream
	b     chunkBuilder
	model string
	tools int
	tool  int // tool-call index of the open tool call, -1 when none
}

type cohEvent struct {
	Type  string `json:"type"`
	ID    string `json:"id"`
	Delta *struct {
		Message      *cohDeltaMessage `json:"message"`
		FinishReason string           `json:"finish_reason"`
		Usage        *cohUsage        `json:"usage"`
		Error        string           `json:"error"`
	} `json:"delta"`
}

// cohDeltaMessage is delta.message. Its content and tool_calls are arrays
// in message-start and objects in the delta events, so they are decoded
// only where the event type says which.
type cohDeltaMessage struct {
	Content   json.RawMessage `json:"content"`
	ToolCalls json.RawMessage `json:"tool_calls"`
}

type cohContentDelta struct {
	Text string `json:"text"`
}

type cohToolDelta struct {
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func (t *cohStreamState) translate(_, data []byte) error {
	var ev cohEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return badStreamData("cohere", err)
	}
	var msg *cohDeltaMessage
	if ev.Delta != nil {
		msg = ev.Delta.Message
	}
	switch ev.Type {
	case "message-start":
		t.b = newChunkBuilder(ev.ID, t.model)
		t.s.emit(t.b.role())
	case "content-delta":
		var c cohContentDelta
		if msg != nil && json.Unmarshal(msg.Content, &c) == nil && c.Text != "" {
			t.s.emit(t.b.text(c.Text))
		}
	case "tool-call-start":
		var tc cohToolDelta
		if msg != nil && json.Unmarshal(msg.ToolCalls, &tc) == nil {
			t.tool = t.tools
			t.tools++
			t.s.emit(t.b.toolStart(t.tool, tc.ID, tc.Function.Name, tc.Function.Arguments))
		}
	case "tool-call-delta":
		var tc cohToolDelta
		if msg != nil && t.tool >= 0 && json.Unmarshal(msg.ToolCalls, &tc) == nil && tc.Function.Arguments != "" {
			t.s.emit(t.b.toolArgs(t.tool, tc.Function.Arguments))
		}
	case "tool-call-end":
		t.tool = -1
	case "message-end":
		var finish string
		var usage *cohUsage
		if ev.Delta != nil {
			finish, usage = ev.Delta.FinishReason, ev.Delta.Usage
			if finish == "ERROR" || finish == "TIMEOUT" {
				return streamEventError("cohere", "", "generation ended with "+finish+" "+ev.Delta.Error)
			}
		}
		t.s.emit(t.b.chunk(engine.Delta{}, cohFinish(finish)))
		t.s.emit(t.b.usage(usage.canonical()))
		t.s.finished = true
	}
	return nil
}
