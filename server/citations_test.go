package server_test

import (
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestRunCarriesPerplexityCitations: a pipe on Perplexity answers with
// its web sources as url_citation annotations in the Langbase run
// response (raw.choices[].message.annotations) and on a stream delta,
// next to the unchanged completion.
func TestRunCarriesPerplexityCitations(t *testing.T) {
	up := fake.NewOpenAIHost("perplexity")
	t.Cleanup(up.Close)
	ts := servertest.Start(t, servertest.WithProvider("perplexity", up.BaseURL(), "pplx-key"))
	up.SetDefault(fake.Reply{Text: "Paris [1].", Citations: []string{"https://a.example/paris"}})
	if r := ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "p", "model": "perplexity:sonar"}); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	r := ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "messages": []any{user("capital of France?")}})
	var got struct {
		Completion string `json:"completion"`
		Raw        struct {
			Choices []struct {
				Message struct {
					Annotations []map[string]any `json:"annotations"`
				} `json:"message"`
			} `json:"choices"`
		} `json:"raw"`
	}
	r.JSON(t, &got)
	if r.Status != 200 || got.Completion != "Paris [1]." || len(got.Raw.Choices) != 1 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	ann := got.Raw.Choices[0].Message.Annotations
	if len(ann) != 1 || ann[0]["type"] != "url_citation" || ann[0]["url_citation"].(map[string]any)["url"] != "https://a.example/paris" {
		t.Fatalf("annotations %v", ann)
	}

	r = ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "stream": true, "messages": []any{user("capital of France?")}})
	seen := 0
	for _, c := range decodeStream(t, r.Body) {
		for _, ch := range c.Choices {
			seen += len(ch.Delta.Annotations)
		}
	}
	if text, _, finish, _ := assemble(decodeStream(t, r.Body)); text != "Paris [1]." || finish != "stop" || seen != 1 {
		t.Fatalf("stream text %q finish %q annotations %d", text, finish, seen)
	}
}
