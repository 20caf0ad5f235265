package fake

import (
	"encoding/json"
	"net/http"
	"strings"
)

// NewRerank starts a fake /rerank server. Its ranking is deliberately the
// reverse of the request's order (the last document scores highest), so a
// test can tell a reranked answer from the first-stage one. With tei false
// it speaks the Cohere/Jina/vLLM shape ({model, query, documents, top_n}
// answered by {results: [{index, relevance_score}]} with scores in (0, 1])
// and BaseURL ends in /v1; with tei true it speaks Hugging Face TEI's
// ({query, texts} answered by a bare array of {index, score}, raw logits
// centred on 0) and BaseURL has no version. A Reply with Status >= 400
// answers {"message": ...} with that status.
func NewRerank(tei bool) *Server {
	if tei {
		return newServer("tei", "", handleRerank)
	}
	return newServer("rerank", "/v1", handleRerank)
}

type rerankReq struct {
	Model     string   `json:"model"`
	Query     string   `json:"query"`
	Documents []string `json:"documents"`
	Texts     []string `json:"texts"`
	TopN      int      `json:"top_n"`
}

func handleRerank(s *Server, w http.ResponseWriter, r *http.Request, body []byte, rep Reply) {
	if rep.Status >= 400 {
		writeError(w, rep, map[string]any{"message": errorMessage(rep)})
		return
	}
	if !strings.HasSuffix(r.URL.Path, "/rerank") {
		writeJSON(w, 404, map[string]any{"message": "not found"})
		return
	}
	var req rerankReq
	if err := json.Unmarshal(body, &req); err != nil || req.Query == "" {
		writeJSON(w, 400, map[string]any{"message": "query is required"})
		return
	}
	docs := req.Documents
	if s.kind == "tei" {
		docs = req.Texts
	}
	if len(docs) == 0 {
		writeJSON(w, 400, map[string]any{"message": "documents must not be empty"})
		return
	}
	n := len(docs)
	type result struct {
		Index int     `json:"index"`
		Score float64 `json:"score,omitempty"`
		Rel   float64 `json:"relevance_score,omitempty"`
	}
	out := make([]result, 0, n)
	for i := n - 1; i >= 0; i-- {
		if s.kind == "tei" {
			out = append(out, result{Index: i, Score: float64(i) - float64(n)/2 + 0.25})
		} else {
			out = append(out, result{Index: i, Rel: float64(i+1) / float64(n)})
		}
	}
	if req.TopN > 0 && req.TopN < len(out) {
		out = out[:req.TopN]
	}
	if s.kind == "tei" {
		writeJSON(w, 200, out)
		return
	}
	writeJSON(w, 200, map[string]any{"id": "rr-1", "results": out, "meta": map[string]any{"billed_units": map[string]int{"search_units": 1}}})
}
