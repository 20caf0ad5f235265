package agent

import (
	"context"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// answerModel answers every non-stream call with the same response.
type answerModel struct {
	engine.ChatModel
	resp *engine.ChatResponse
}

func (m *answerModel) Chat(context.Context, *engine.ChatRequest) (*engine.ChatResponse, error) {
	return m.resp, nil
}

// modelProviders serves one chat model.
type modelProviders struct {
	engine.Providers
	model engine.ChatModel
}

func (p modelProviders) ChatModel(engine.ModelRef) (engine.ChatModel, error) { return p.model, nil }

// TestAgentStartAllocations: a non-stream agent call keeps its model's
// metrics wrapper and its result in the run, so with a model that answers
// without allocating and no MCP servers, start allocates nothing; the
// result carries the answer and its text.
func TestAgentStartAllocations(t *testing.T) {
	text := "Foxes are quick."
	resp := &engine.ChatResponse{ID: "chatcmpl-1", Object: "chat.completion", Created: 1, Model: "gpt-4o-mini",
		Choices: []engine.Choice{{Message: engine.ResponseMessage{Role: "assistant", Content: &text}, FinishReason: "stop"}}}
	a := NewAgent(AgentOptions{Providers: engine.InstrumentProviders(modelProviders{model: &answerModel{resp: resp}}, engine.NopMetrics{})})
	ref := engine.ModelRef{Provider: "openai", Model: "gpt-4o-mini"}
	run := &agentRun{ref: ref, chat: &engine.ChatRequest{Model: ref.Model}}
	ctx := context.Background()
	res, err := a.start(ctx, "owner", "sk-test", run, nil)
	if err != nil || res != &run.result || res.Response != resp || res.Output == nil || *res.Output != text || res.Model != ref {
		t.Fatalf("start = %+v, %v", res, err)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = a.start(ctx, "owner", "sk-test", run, nil) }); n != 0 {
		t.Fatalf("start allocates %.0f times, want 0", n)
	}
}
