package providers_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
)

// TestPerplexityCitationsAsAnnotations: Perplexity's citations and
// search_results reach the caller as url_citation annotations, in plain
// answers and on the finishing delta of a stream.
func TestPerplexityCitationsAsAnnotations(t *testing.T) {
	f := fake.NewOpenAIHost("perplexity")
	defer f.Close()
	reg := newRegistry(t, "perplexity", f, &sleeps{})
	m, _ := reg.ChatModel(engine.ModelRef{Provider: "perplexity", Model: "sonar"})
	f.SetDefault(fake.Reply{Text: "Paris is the capital [1] and largest city [2].", Citations: []string{"https://a.example/paris", "https://b.example/fr"}})
	req := &engine.ChatRequest{Model: "sonar", Messages: []engine.Message{userMsg("capital of France?")}, APIKey: "k"}
	want := `[{"type":"url_citation","url_citation":{"url":"https://a.example/paris","title":"Source 1","start_index":21,"end_index":24}},` +
		`{"type":"url_citation","url_citation":{"url":"https://b.example/fr","title":"Source 2","start_index":42,"end_index":45}}]`

	resp, err := m.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(resp.Choices[0].Message.Annotations); string(got) != want {
		t.Errorf("annotations\n got %s\nwant %s", got, want)
	}

	s, err := m.ChatStream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var got []any
	for {
		c, err := s.Recv()
		if err != nil {
			break
		}
		for _, ch := range c.Choices {
			if len(ch.Delta.Annotations) > 0 {
				if got != nil {
					t.Errorf("annotations sent twice")
				}
				got = ch.Delta.Annotations
			}
		}
	}
	if b, _ := json.Marshal(got); string(b) != want {
		t.Errorf("stream annotations\n got %s\nwant %s", b, want)
	}

	f.SetDefault(fake.Reply{Text: "No sources."})
	resp, err = m.Chat(context.Background(), req)
	if err != nil || resp.Choices[0].Message.Annotations == nil || len(resp.Choices[0].Message.Annotations) != 0 {
		t.Errorf("an answer without sources should carry empty annotations: %+v %v", resp, err)
	}
}
