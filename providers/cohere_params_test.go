package providers_test

import (
	"context"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
)

// TestCohereParameterRanges: OpenAI-range penalties (-2..2) and the pipe
// default top_p 1 are mapped into Cohere's ranges (penalties 0..1, p
// 0.01..0.99), which the strict fake enforces as Cohere does.
func TestCohereParameterRanges(t *testing.T) {
	f := fake.NewCohere()
	defer f.Close()
	req := fullRequest("command-a-03-2025")
	req.PresencePenalty, req.FrequencyPenalty, req.TopP = f64(1.5), f64(-0.5), f64(1)
	body := sentBody(t, "cohere", f, req)
	if body["presence_penalty"] != 0.75 || body["frequency_penalty"] != 0.0 || body["p"] != 0.99 {
		t.Errorf("presence %v frequency %v p %v; want 0.75, 0, 0.99", body["presence_penalty"], body["frequency_penalty"], body["p"])
	}
	req.PresencePenalty, req.FrequencyPenalty = f64(2), f64(1)
	body = sentBody(t, "cohere", f, req)
	if body["presence_penalty"] != 1.0 || body["frequency_penalty"] != 0.5 {
		t.Errorf("presence %v frequency %v; want 1, 0.5", body["presence_penalty"], body["frequency_penalty"])
	}
}

// TestCohereUsageIsBilledUnits: usage (and so the cost) comes from
// billed_units, not from tokens, which also count Cohere's prompt
// template; in plain and streamed answers.
func TestCohereUsageIsBilledUnits(t *testing.T) {
	f := fake.NewCohere()
	defer f.Close()
	reg := newRegistry(t, "cohere", f, &sleeps{})
	ref := engine.ModelRef{Provider: "cohere", Model: "command-a-03-2025"}
	m, _ := reg.ChatModel(ref)
	f.SetDefault(fake.Reply{Usage: fake.Usage{PromptTokens: 1000, CompletionTokens: 100}})
	req := &engine.ChatRequest{Model: ref.Model, Messages: []engine.Message{userMsg("hi")}, APIKey: "k"}
	resp, err := m.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Usage.PromptTokens != 1000 || resp.Usage.CompletionTokens != 100 {
		t.Errorf("usage %+v, want billed 1000/100 (tokens say %d)", resp.Usage, 1000+fake.CohereTemplateTokens)
	}
	if usd, ok := reg.Cost(ref, resp.Usage.PromptTokens, resp.Usage.CompletionTokens); !ok || usd != (1000*2.5+100*10)/1e6 {
		t.Errorf("cost %v %v", usd, ok)
	}
	s, err := m.ChatStream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	a, err := collect(t, s)
	if err != nil || a.usage == nil || a.usage.PromptTokens != 1000 {
		t.Errorf("stream usage %+v (%v)", a.usage, err)
	}
}
