package providers

import (
	"context"
	"encoding/json"

	"github.com/hearth-dev/hearth/engine"
)

// ChatStream sends a streaming Messages request and translates its events
// (message_start, content_block_start/delta/stop, message_delta,
// message_stop, ping, error) into OpenAI chunks. Tool-use blocks become
// tool-call deltas keyed by their own index among tool calls; the stream is
// complete only at message_stop.
func (a *Anthropic) ChatStream(ctx context.Context, req *engine.ChatRequest) (engine.ChatStream, error) {
	ar := buildAnthropicRequestRule(req, true, a.rule(req.Model))
	extra, beta, err := antBetaHeader(req.Extra)
	if err != nil {
		return nil, err
	}
	body, err := encodeAnthropicRequest(ar, extra)
	if err != nil {
		return nil, err
	}
	call, err := a.c.post(ctx, a.baseURL+"/messages", body, true, a.headers(req.APIKey, beta))
	if err != nil {
		return nil, err
	}
	s := newSSEStream("anthropic", call)
	t := &antStreamState{s: s, jsonTool: ar.jsonTool, blocks: map[int]int{}, model: req.Model}
	s.translate = t.translate
	return s, nil
}

type antStreamState struct {
	s        *sseStream
	b        chunkBuilder
	jsonTool string
	// blocks maps a content block index to its tool-call index, or -1 for
	// the forced json_schema tool (whose input streams as text).
	blocks map[int]int
	tools  int
	usage  antUsage
	finish string
	// stopSeq is the stop sequence that ended the answer, if one did.
	stopSeq string
	// thinking collects the turn's thinking blocks (index -> block being
	// streamed; done holds the finished ones, raw) for the extra_content
	// of the first tool call.
	thinking map[int]*antThinkingBlock
	done     []json.RawMessage
	// reasoning numbers the answer's reasoning blocks as they start;
	// blockNo maps a content block index to its number.
	reasoning int
	blockNo   map[int]int
	// model is the model asked; types and ids are the answer's blocks in
	// order, for the layout kept with its thinking; seen counts the
	// visible answer's bytes (text and tool calls), for reasoning tokens.
	model      string
	types, ids []string
	seen       int
}

// antThinkingBlock is a thinking or redacted_thinking block rebuilt from
// its stream events.
type antThinkingBlock struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

// text emits answer text, noting the text block's place in the layout.
func (t *antStreamState) text(s string) {
	if n := len(t.types); n == 0 || t.types[n-1] != "text" {
		t.types, t.ids = append(t.types, "text"), append(t.ids, "")
	}
	t.seen += len(s)
	t.s.emit(t.b.text(s))
}

type antEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		ID    string   `json:"id"`
		Model string   `json:"model"`
		Usage antUsage `json:"usage"`
	} `json:"message"`
	ContentBlock json.RawMessage `json:"content_block"`
	Delta        *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
		StopSeq     string `json:"stop_sequence"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
	} `json:"delta"`
	Usage *antUsage `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

func (t *antStreamState) translate(_, data []byte) error {
	var ev antEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return badStreamData("anthropic", err)
	}
	switch ev.Type {
	case "message_start":
		if ev.Message != nil {
			t.b = newChunkBuilder(ev.Message.ID, ev.Message.Model)
			t.usage = ev.Message.Usage
		}
		t.s.emit(t.b.role())
	case "content_block_start":
		var cb *antBlock
		if len(ev.ContentBlock) > 0 {
			cb = new(antBlock)
			if err := json.Unmarshal(ev.ContentBlock, cb); err != nil {
				return badStreamData("anthropic", err)
			}
		}
		if cb != nil && cb.Type != "text" {
			t.types, t.ids = append(t.types, cb.Type), append(t.ids, cb.ID)
		}
		switch {
		case cb == nil:
		case cb.Type == "thinking":
			if t.thinking == nil {
				t.thinking, t.blockNo = map[int]*antThinkingBlock{}, map[int]int{}
			}
			t.thinking[ev.Index] = &antThinkingBlock{Type: "thinking"}
			t.blockNo[ev.Index] = t.reasoning
			t.reasoning++
		case cb.Type == "redacted_thinking":
			t.done = append(t.done, ev.ContentBlock)
			t.s.emit(t.b.chunk(engine.Delta{Reasoning: &engine.ReasoningDelta{Block: t.reasoning, Redacted: ev.ContentBlock}}, ""))
			t.reasoning++
		}
		if cb != nil && cb.Type == "tool_use" {
			if t.jsonTool != "" && cb.Name == t.jsonTool {
				t.blocks[ev.Index] = -1
				return nil
			}
			t.blocks[ev.Index] = t.tools
			t.seen += len(cb.Name)
			t.s.emit(t.b.toolStart(t.tools, cb.ID, cb.Name, ""))
			t.tools++
		} else if cb != nil && cb.Type == "text" && cb.Text != "" {
			t.text(cb.Text)
		}
	case "content_block_delta":
		if ev.Delta == nil {
			return nil
		}
		switch ev.Delta.Type {
		case "text_delta":
			if ev.Delta.Text != "" {
				t.text(ev.Delta.Text)
			}
		case "thinking_delta", "signature_delta":
			if b := t.thinking[ev.Index]; b != nil {
				b.Thinking += ev.Delta.Thinking
				b.Signature += ev.Delta.Signature
				if ev.Delta.Thinking != "" || ev.Delta.Signature != "" {
					t.s.emit(t.b.chunk(engine.Delta{Reasoning: &engine.ReasoningDelta{Block: t.blockNo[ev.Index],
						Text: ev.Delta.Thinking, Signature: ev.Delta.Signature}}, ""))
				}
			}
		case "input_json_delta":
			if ev.Delta.PartialJSON == "" {
				return nil
			}
			idx, ok := t.blocks[ev.Index]
			switch {
			case !ok:
			case idx < 0:
				t.text(ev.Delta.PartialJSON)
			default:
				t.seen += len(ev.Delta.PartialJSON)
				t.s.emit(t.b.toolArgs(idx, ev.Delta.PartialJSON))
			}
		}
	case "content_block_stop":
		if b := t.thinking[ev.Index]; b != nil {
			raw, _ := json.Marshal(b)
			t.done = append(t.done, raw)
			delete(t.thinking, ev.Index)
		}
	case "message_delta":
		if ev.Delta != nil && ev.Delta.StopReason != "" {
			t.finish = antFinish(ev.Delta.StopReason)
			t.stopSeq = ev.Delta.StopSeq
		}
		if ev.Usage != nil {
			t.usage.OutputTokens = ev.Usage.OutputTokens
			if ev.Usage.InputTokens > 0 {
				t.usage.InputTokens = ev.Usage.InputTokens
			}
		}
	case "message_stop":
		finish := t.finish
		if finish == "" {
			finish = "stop"
		}
		if t.jsonTool != "" && finish == "tool_calls" && t.tools == 0 {
			finish = "stop"
		}
		if t.tools > 0 && len(t.done) > 0 {
			c := t.b.toolArgs(0, "")
			c.Choices[0].Delta.ToolCalls[0].ExtraContent = extraWith(nil, "anthropic", antExtra{Thinking: t.done, Model: t.model, Layout: antLayoutOf(t.types, t.ids)})
			t.s.emit(c)
		}
		last := t.b.chunk(engine.Delta{}, finish)
		last.Choices[0].StopSequence = t.stopSeq
		if t.tools == 0 && len(t.done) > 0 {
			last.Choices[0].Delta.Thinking = t.done
		}
		t.s.emit(last)
		t.s.emit(t.b.usage(t.usage.canonical(len(t.done) > 0, t.seen)))
		t.s.finished = true
	case "error":
		if ev.Error != nil {
			return streamEventError("anthropic", ev.Error.Type, ev.Error.Message)
		}
		return streamEventError("anthropic", "", string(data))
	}
	return nil
}
