package providers

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// ChatStream sends streamGenerateContent?alt=sse. Each event is a partial
// GenerateContentResponse; function calls arrive whole and become one
// tool-call delta each. Gemini sends no end marker: the stream is complete
// once a candidate carried a finishReason.
func (g *Google) ChatStream(ctx context.Context, req *engine.ChatRequest) (engine.ChatStream, error) {
	body, err := encodeGeminiRequest(req, g.rule(req.Model))
	if err != nil {
		return nil, err
	}
	call, err := g.c.post(ctx, g.modelURL(req.Model, "streamGenerateContent")+"?alt=sse", body, true, g.headers(req.APIKey))
	if err != nil {
		return nil, err
	}
	s := newSSEStream("google", call)
	t := &gemStreamState{s: s, model: req.Model}
	s.translate = t.translate
	return s, nil
}

type gemStreamState struct {
	s       *sseStream
	b       chunkBuilder
	model   string
	started bool
	tools   int
	usage   *gemUsage
	finish  string
}

func (t *gemStreamState) translate(_, data []byte) error {
	var ev gemResponse
	if err := json.Unmarshal(data, &ev); err != nil {
		return badStreamData("google", err)
	}
	if ev.Error != nil {
		return streamEventError("google", ev.Error.Status, ev.Error.Message)
	}
	if !t.started {
		model := ev.ModelVersion
		if model == "" {
			model = t.model
		}
		id := ev.ResponseID
		if id == "" {
			id = "gemini-" + strings.ReplaceAll(model, "/", "-")
		}
		t.b = newChunkBuilder(id, model)
		t.s.emit(t.b.role())
		t.started = true
	}
	if ev.UsageMetadata != nil {
		t.usage = ev.UsageMetadata
	}
	if len(ev.Candidates) == 0 {
		if ev.PromptFeedback != nil && ev.PromptFeedback.BlockReason != "" {
			t.end("content_filter")
		}
		return nil
	}
	cand := ev.Candidates[0]
	for _, p := range cand.Content.Parts {
		switch {
		case p.FunctionCall != nil:
			tc := gemToolCall(p)
			c := t.b.toolStart(t.tools, tc.ID, tc.Function.Name, tc.Function.Arguments)
			c.Choices[0].Delta.ToolCalls[0].ExtraContent = tc.ExtraContent
			t.s.emit(c)
			t.tools++
		case !p.Thought && p.Text != "":
			t.s.emit(t.b.text(p.Text))
		}
	}
	if cand.FinishReason != "" {
		if err := gemFinishError(cand.FinishReason, cand.FinishMessage); err != nil {
			return err
		}
		t.end(gemFinish(cand.FinishReason, t.tools > 0))
	}
	return nil
}

// end emits the finish chunk and the usage chunk. Gemini repeats
// usageMetadata on the last event, which may follow the finishReason
// event, so the body's end after a finish is also a normal end.
func (t *gemStreamState) end(finish string) {
	t.s.emit(t.b.chunk(engine.Delta{}, finish))
	t.s.emit(t.b.usage(t.usage.canonical()))
	t.s.finished = true
}
