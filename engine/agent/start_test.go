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

// answerAgent is an agent whose model answers text to every call.
func answerAgent(text string) (*Agent, *engine.ChatResponse) {
	resp := &engine.ChatResponse{ID: "chatcmpl-1", Object: "chat.completion", Created: 1, Model: "gpt-4o-mini",
		Choices: []engine.Choice{{Message: engine.ResponseMessage{Role: "assistant", Content: &text}, FinishReason: "stop"}}}
	return NewAgent(AgentOptions{Providers: engine.InstrumentProviders(modelProviders{model: &answerModel{resp: resp}}, engine.NopMetrics{})}), resp
}

// TestAgentStartKeepsResultInRun: a non-stream agent call keeps its result
// in the run; the result carries the answer, its text and the model.
func TestAgentStartKeepsResultInRun(t *testing.T) {
	text := "Foxes are quick."
	a, resp := answerAgent(text)
	ref := engine.ModelRef{Provider: "openai", Model: "gpt-4o-mini"}
	run := &agentRun{ref: ref, chat: &engine.ChatRequest{Model: ref.Model}}
	res, err := a.start(context.Background(), "owner", "sk-test", run, nil)
	if err != nil || res != &run.result || res.Response != resp || res.Output == nil || *res.Output != text || res.Model != ref {
		t.Fatalf("start = %+v, %v", res, err)
	}
}

// BenchmarkAgentStartAllocs: a non-stream agent call keeps its model's
// metrics wrapper and its result in the run, so with a model that answers
// without allocating and no MCP servers, start allocates nothing (Go 1.26).
func BenchmarkAgentStartAllocs(b *testing.B) {
	a, _ := answerAgent("Foxes are quick.")
	ref := engine.ModelRef{Provider: "openai", Model: "gpt-4o-mini"}
	run := &agentRun{ref: ref, chat: &engine.ChatRequest{Model: ref.Model}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.start(ctx, "owner", "sk-test", run, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRunInKeepsRunInState: RunIn builds the run in the caller's state
// (the result points into it); Run gives the same answer with a state of
// its own.
func TestRunInKeepsRunInState(t *testing.T) {
	text := "Foxes are quick."
	a, resp := answerAgent(text)
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
}

// BenchmarkRunInAllocs: RunIn, in the caller's state, allocates no more
// than the request's own strings need; Run one allocation more, its state
// (Go 1.26).
func BenchmarkRunInAllocs(b *testing.B) {
	a, _ := answerAgent("Foxes are quick.")
	instructions := "Be terse."
	req := &AgentRunRequest{Model: "openai:gpt-4o-mini", Instructions: &instructions, Input: []byte(`"Say something."`)}
	ctx := context.Background()
	var st RunState
	for _, c := range []struct {
		name string
		run  func() (*AgentResult, error)
	}{
		{"RunIn", func() (*AgentResult, error) { return a.RunIn(ctx, "owner", "sk-test", req, &st) }},
		{"Run", func() (*AgentResult, error) { return a.Run(ctx, "owner", "sk-test", req) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
