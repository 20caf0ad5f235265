package server_test

import (
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestOpenAIEmbeddingDimensions: dimensions reaches OpenAI for a
// text-embedding-3 model, which answers vectors of that size; a model
// that cannot shorten its vectors is refused before any upstream call
// with a 400 naming dimensions; a value out of range is refused too.
func TestOpenAIEmbeddingDimensions(t *testing.T) {
	up := fake.NewOpenAI()
	t.Cleanup(up.Close)
	ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), "sk-test"))
	var res struct {
		Data []struct {
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	r := ts.Do("POST", "/openai/v1/embeddings", servertest.AdminKey,
		map[string]any{"model": "openai:text-embedding-3-small", "input": []string{"owls", "bees"}, "dimensions": 5})
	mustStatus(t, r, 200)
	r.JSON(t, &res)
	if len(res.Data) != 2 || len(res.Data[0].Embedding) != 5 || len(res.Data[1].Embedding) != 5 {
		t.Fatalf("vectors %+v", res.Data)
	}
	if got := up.LastRequest().JSON()["dimensions"]; got != 5.0 {
		t.Fatalf("upstream dimensions %v", got)
	}
	n := up.Count()
	for _, tc := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"model": "openai:text-embedding-ada-002", "input": "x", "dimensions": 5}, "cannot shorten"},
		{map[string]any{"model": "hearth:hash-embed", "input": "x", "dimensions": 8}, "cannot shorten"},
		{map[string]any{"model": "openai:text-embedding-3-small", "input": "x", "dimensions": 0}, "between 1 and"},
	} {
		r := ts.Do("POST", "/openai/v1/embeddings", servertest.AdminKey, tc.body)
		if r.Status != 400 || !strings.Contains(string(r.Body), `"param":"dimensions"`) || !strings.Contains(string(r.Body), tc.want) {
			t.Fatalf("%v: %d %s", tc.body, r.Status, r.Body)
		}
	}
	if up.Count() != n {
		t.Fatalf("refused requests reached the upstream (%d calls)", up.Count()-n)
	}
}
