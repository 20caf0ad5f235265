package server_test

import (
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestRAGScoreThreshold: a pipe memory's min_score drops weak chunks; when
// none is left the model is told that nothing matched instead of getting
// noise, and a run's memory settings override the pipe's (here a reranker
// that reverses the order).
func TestRAGScoreThreshold(t *testing.T) {
	up := fake.NewOpenAI()
	defer up.Close()
	rr := fake.NewRerank(false)
	defer rr.Close()
	up.SetRecording(true)
	ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), "sk-server"), servertest.WithProvider("jina", rr.BaseURL(), ""))
	key := servertest.AdminKey
	seedOwls(t, ts, key, map[string]any{"top_k": 2})
	mustStatus(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "helper", "model": "openai:gpt-4o-mini",
		"memory": []map[string]any{{"name": "kb", "min_score": 0.6}}}), 200)
	system := func(question string, memory any) string {
		t.Helper()
		body := map[string]any{"name": "helper", "stream": false, "messages": []map[string]string{{"role": "user", "content": question}}}
		if memory != nil {
			body["memory"] = memory
		}
		mustStatus(t, ts.Do("POST", "/v1/pipes/run", key, body), 200)
		msgs, _ := up.LastRequest().JSON()["messages"].([]any)
		s, _ := msgs[0].(map[string]any)["content"].(string)
		return s
	}
	// Nothing in the keyword index and only vector ranks: every fused score is at most 0.5.
	s := system("Which flowers do bees like?", nil)
	if !strings.Contains(s, engine.NoMatchRAGPrompt) || strings.Contains(s, "CONTEXT") || strings.Contains(s, "owls") {
		t.Fatalf("no chunk above min_score, system prompt:\n%s", s)
	}
	s = system("when do owls hunt at night", nil)
	if strings.Contains(s, engine.NoMatchRAGPrompt) || !strings.Contains(s, "Source: d") {
		t.Fatalf("a matching question, system prompt:\n%s", s)
	}
	// Without a threshold an empty retrieval keeps Langbase's prompt (no RAG block).
	s = system("Which flowers do bees like?", []map[string]any{{"name": "kb", "min_score": 0}})
	if !strings.Contains(s, "Source:") {
		t.Fatalf("min_score 0 keeps every chunk:\n%s", s)
	}
	// The run's memory settings replace the pipe's: a reranker, no threshold.
	rr.SetRecording(true)
	s = system("when do owls hunt at night", []map[string]any{{"name": "kb", "rerank": map[string]any{"model": "jina:jina-reranker-v2-base-multilingual"}}})
	sent := sentOrder(t, rr, "documents")
	i, j := strings.Index(s, "Source: "+sent[4]), strings.Index(s, "Source: "+sent[3])
	if len(sent) != 5 || i < 0 || j < 0 || i > j || strings.Contains(s, sent[0]) {
		t.Fatalf("reranked run context (first stage %v):\n%s", sent, s)
	}
	r := ts.Do("GET", "/v1/pipes/helper", key, nil)
	if !strings.Contains(string(r.Body), `"min_score":0.6`) {
		t.Fatalf("pipe view lacks min_score: %s", r.Body)
	}
}
