package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// seedOwls makes memory kb (created with body's extra fields) of five
// one-chunk documents about owls.
func seedOwls(t *testing.T, ts *servertest.Server, key string, extra map[string]any) {
	t.Helper()
	body := map[string]any{"name": "kb", "embedding_model": hashModel, "chunk_size": 2000, "chunk_overlap": 0}
	for k, v := range extra {
		body[k] = v
	}
	createMemory(t, ts, key, body)
	for i := range 5 {
		text := strings.Repeat("owls hunt at night. ", 5-i) + fmt.Sprintf("Document %d talks about forests.", i)
		upload(t, ts, key, "kb", fmt.Sprintf("d%d.txt", i), "text/plain", []byte(text), nil)
	}
	for i := range 5 {
		waitCompleted(t, ts, key, "kb", fmt.Sprintf("d%d.txt", i))
	}
}

// sentOrder returns the documents (d<i>.txt) whose texts a fake reranker
// last received, in the order it received them: the first-stage order.
func sentOrder(t *testing.T, up *fake.Server, field string) []string {
	t.Helper()
	var req map[string]any
	if err := json.Unmarshal(up.LastRequest().Body, &req); err != nil {
		t.Fatal(err)
	}
	docs, _ := req[field].([]any)
	out := make([]string, len(docs))
	for i, d := range docs {
		text, _ := d.(string)
		var n int
		if _, err := fmt.Sscanf(text[strings.Index(text, "Document "):], "Document %d", &n); err != nil {
			t.Fatalf("unexpected document %q", text)
		}
		out[i] = fmt.Sprintf("d%d.txt", n)
	}
	return out
}

// TestRetrievalRerank: a reranker reorders more candidates than it keeps
// (the fake reverses the first-stage order), the memory's setting applies
// unless the request overrides or turns it off, TEI's bare-array answer of
// raw logits is read and scaled into (0, 1), and a failing reranker falls
// back to the first-stage order with lb-retrieval-mode: rerank-fallback.
func TestRetrievalRerank(t *testing.T) {
	coh := fake.NewRerank(false)
	defer coh.Close()
	tei := fake.NewRerank(true)
	defer tei.Close()
	coh.SetRecording(true)
	tei.SetRecording(true)
	ts := servertest.Start(t, servertest.WithProvider("cohere", coh.BaseURL(), "co-key"), servertest.WithProvider("tei", tei.BaseURL(), ""))
	key := servertest.AdminKey
	seedOwls(t, ts, key, map[string]any{"rerank": map[string]any{"model": "cohere:rerank-v3.5", "top_n": 2}})
	ask := func(extra map[string]any) *servertest.Response {
		body := map[string]any{"query": "when do owls hunt", "memory": []map[string]any{{"name": "kb"}}, "topK": 5}
		for k, v := range extra {
			body[k] = v
		}
		return ts.Do("POST", "/v1/memory/retrieve", key, body)
	}
	decode := func(r *servertest.Response) []chunkOut {
		t.Helper()
		mustStatus(t, r, 200)
		var out []chunkOut
		r.JSON(t, &out)
		return out
	}

	first := decode(ask(map[string]any{"rerank": map[string]any{"model": engine.RerankOff}}))
	plain := names(first)
	if len(plain) != 5 || coh.Count() != 0 {
		t.Fatalf("rerank off: %v, reranker calls %d", plain, coh.Count())
	}
	r := ask(nil)
	got := decode(r)
	sentDocs := sentOrder(t, coh, "documents")
	if want := []string{sentDocs[4], sentDocs[3]}; strings.Join(names(got), ",") != strings.Join(want, ",") {
		t.Fatalf("memory's reranker: got %v, want %v (sent %v)", names(got), want, sentDocs)
	}
	if got[0].Similarity != 1 || got[1].Similarity != 0.8 || r.Header.Get(server.HeaderRetrievalMode) != "" {
		t.Fatalf("reranked scores %v, %v, mode %q", got[0].Similarity, got[1].Similarity, r.Header.Get(server.HeaderRetrievalMode))
	}
	sent := coh.LastRequest()
	var req struct {
		Model     string   `json:"model"`
		Query     string   `json:"query"`
		Documents []string `json:"documents"`
		TopN      int      `json:"top_n"`
	}
	if err := json.Unmarshal(sent.Body, &req); err != nil {
		t.Fatal(err)
	}
	if req.Model != "rerank-v3.5" || req.Query != "when do owls hunt" || len(req.Documents) != 5 || req.TopN != 2 ||
		sent.Header.Get("Authorization") != "Bearer co-key" || !strings.HasSuffix(sent.Path, "/rerank") {
		t.Fatalf("cohere request: %s %+v auth %q", sent.Path, req, sent.Header.Get("Authorization"))
	}

	got = decode(ask(map[string]any{"rerank": map[string]any{"model": "tei:bge-reranker-base", "top_n": 3}}))
	sentDocs = sentOrder(t, tei, "texts")
	if want := []string{sentDocs[4], sentDocs[3], sentDocs[2]}; strings.Join(names(got), ",") != strings.Join(want, ",") {
		t.Fatalf("tei: got %v, want %v", names(got), want)
	}
	for i, c := range got {
		if c.Similarity <= 0 || c.Similarity >= 1 || (i > 0 && c.Similarity >= got[i-1].Similarity) {
			t.Fatalf("tei logits not scaled into (0,1) in order: %+v", got)
		}
	}
	var teiReq map[string]any
	json.Unmarshal(tei.LastRequest().Body, &teiReq)
	if texts, _ := teiReq["texts"].([]any); len(texts) != 5 {
		t.Fatalf("tei request lacks texts: %s", tei.LastRequest().Body)
	}

	// min_score applies to the reranker's scores (1 and 0.8 here).
	if got := decode(ask(map[string]any{"min_score": 0.9})); len(got) != 1 || got[0].DocumentName != sentOrder(t, coh, "documents")[4] {
		t.Fatalf("reranked with min_score 0.9: %v", names(got))
	}

	coh.SetDefault(fake.Reply{Status: 500, Message: "reranker exploded"})
	r = ask(nil)
	got = decode(r)
	sentDocs = sentOrder(t, coh, "documents")
	if strings.Join(names(got), ",") != strings.Join(sentDocs[:2], ",") || r.Header.Get(server.HeaderRetrievalMode) != "rerank-fallback" {
		t.Fatalf("fallback: got %v (mode %q), want first stage %v", names(got), r.Header.Get(server.HeaderRetrievalMode), sentDocs[:2])
	}
	// The fallback answers the first-stage scores, which a min_score still filters.
	cut := (first[0].Similarity + first[1].Similarity) / 2
	if first[0].Similarity == first[1].Similarity {
		t.Fatalf("first stage ties: %+v", first)
	}
	if got := decode(ask(map[string]any{"min_score": cut})); len(got) != 1 || got[0].Similarity < cut {
		t.Fatalf("fallback with min_score %v: %+v", cut, got)
	}
}

// TestRetrievalRerankValidation: bad rerank settings are 400s naming the field.
func TestRetrievalRerankValidation(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel})
	cases := []struct {
		path  string
		body  map[string]any
		field string
	}{
		{"/v1/memory/retrieve", map[string]any{"rerank": map[string]any{"model": "nope"}}, "rerank.model"},
		{"/v1/memory/retrieve", map[string]any{"rerank": map[string]any{"model": "hearth:nope"}}, "rerank.model"},
		{"/v1/memory/retrieve", map[string]any{"rerank": map[string]any{"model": "nosuch:x"}}, "rerank.model"},
		{"/v1/memory/retrieve", map[string]any{"rerank": map[string]any{"model": "hearth:overlap-rerank", "top_n": 101}}, "rerank.top_n"},
		{"/v1/memory/retrieve", map[string]any{"min_score": 1.5}, "min_score"},
		{"/v1/memory/retrieve", map[string]any{"min_score": -0.1}, "min_score"},
		{"/v1/memory", map[string]any{"name": "kb2", "rerank": map[string]any{"model": ""}}, "rerank.model"},
		{"/v1/pipes", map[string]any{"name": "p", "memory": []map[string]any{{"name": "kb", "min_score": 2}}}, "memory[0].min_score"},
		{"/v1/pipes", map[string]any{"name": "p", "memory": []map[string]any{{"name": "kb", "rerank": map[string]any{"model": "x"}}}}, "memory[0].rerank.model"},
	}
	for _, tc := range cases {
		body := map[string]any{"query": "q", "memory": []map[string]any{{"name": "kb"}}}
		if tc.path != "/v1/memory/retrieve" {
			body = map[string]any{}
		}
		for k, v := range tc.body {
			body[k] = v
		}
		r := ts.Do("POST", tc.path, key, body)
		if code, msg := errorOf(t, r); r.Status != 400 || code != engine.CodeBadRequest || !strings.Contains(msg, tc.field) {
			t.Errorf("%s %v: %d %s", tc.path, tc.body, r.Status, r.Body)
		}
	}
	// The offline double reranks by query-word overlap.
	upload(t, ts, key, "kb", "a.txt", "text/plain", []byte("Bees make honey."), nil)
	upload(t, ts, key, "kb", "b.txt", "text/plain", []byte("Owls hunt mice at night."), nil)
	waitCompleted(t, ts, key, "kb", "a.txt")
	waitCompleted(t, ts, key, "kb", "b.txt")
	res := retrieve(t, ts, key, map[string]any{"query": "owls hunt", "memory": []map[string]any{{"name": "kb"}},
		"rerank": map[string]any{"model": "hearth:overlap-rerank"}})
	if len(res) != 2 || res[0].DocumentName != "b.txt" || res[0].Similarity != 1 || res[1].Similarity != 0 {
		t.Fatalf("overlap rerank: %+v", res)
	}
}
