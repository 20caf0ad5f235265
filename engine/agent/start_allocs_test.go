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

// TestRunInKeepsRunInState: RunIn builds the run in the caller's state
// (the result points into it) and allocates no more than the request's
// own strings need; Run gives the same answer with a state of its own.
func TestRunInKeepsRunInState(t *testing.T) {
	text := "Foxes are quick."
	resp := &engine.ChatResponse{ID: "chatcmpl-1", Object: "chat.completion", Created: 1, Model: "gpt-4o-mini",
		Choices: []engine.Choice{{Message: engine.ResponseMessage{Role: "assistant", Content: &text}, FinishReason: "stop"}}}
	a := NewAgent(AgentOptions{Providers: engine.InstrumentProviders(modelProviders{model: &answerModel{resp: resp}}, engine.NopMetrics{})})
	instructions := "Be terse."
	req := &AgentRunRequest{Model: "openai:gpt-4o-mini", Instructions: &instructions, Input: []byte(`"Say something."`)}
	ctx := context.Background()
	var st RunState
	res, err := a.RunIn(ctx, "owner", "sk-test", req, &st)
	if err != nil || res != &st.run.result || res.Response != resp || *res.Output != text || len(st.run.chat.Messages) != 2 {
		t.Fatalf("RunIn = %+v, %v", res, err)
	}
	viaRun, err := a.Run(ctx, "owner", "sk-test", req)
	if err != nil || viaRun == res || viaRun.Response != resp || *viaRun.Output != text || viaRun.Model != res.Model {
		t.Fatalf("Run = %+v, %v", viaRun, err)
	}
	in := testing.AllocsPerRun(100, func() { _, _ = a.RunIn(ctx, "owner", "sk-test", req, &st) })
	run := testing.AllocsPerRun(100, func() { _, _ = a.Run(ctx, "owner", "sk-test", req) })
	t.Logf("RunIn %.0f allocations, Run %.0f", in, run)
	if run-in != 1 {
		t.Fatalf("RunIn allocates %.0f times, Run %.0f: want one allocation apart (the state)", in, run)
	}
}
