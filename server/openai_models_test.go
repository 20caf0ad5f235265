package server_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

// TestOpenAIModelsRunnable: GET /openai/v1/models lists what can run
// here: a local server's real models (asked as GET /v1/models does), not
// catalogue guesses for it; embedding models next to chat models; the
// caller's pipe: entries; nothing of providers without a key.
func TestOpenAIModelsRunnable(t *testing.T) {
	ollama := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"object":"list","data":[{"id":"qwen3:0.6b","object":"model"},{"id":"nomic-embed-text:latest","object":"model"}]}`))
	}))
	defer ollama.Close()
	ts := servertest.Start(t, servertest.WithProvider("ollama", ollama.URL+"/v1", ""))
	mustStatus(t, ts.Do("POST", "/v1/pipes", servertest.AdminKey, map[string]any{"name": "listed-pipe", "model": "hearth:echo"}), 200)
	var list struct {
		Data []struct {
			ID      string `json:"id"`
			OwnedBy string `json:"owned_by"`
		} `json:"data"`
	}
	r := ts.Do("GET", "/openai/v1/models", servertest.AdminKey, nil)
	mustStatus(t, r, 200)
	r.JSON(t, &list)
	var ids []string
	for _, m := range list.Data {
		ids = append(ids, m.ID)
	}
	for _, want := range []string{"ollama:qwen3:0.6b", "ollama:nomic-embed-text:latest", "hearth:echo", "hearth:hash-embed", "pipe:listed-pipe"} {
		if !slices.Contains(ids, want) {
			t.Fatalf("%s missing from %v", want, ids)
		}
	}
	for _, id := range ids {
		if strings.HasPrefix(id, "ollama:") && id != "ollama:qwen3:0.6b" && id != "ollama:nomic-embed-text:latest" {
			t.Fatalf("%s is listed but the local server does not have it (%v)", id, ids)
		}
		if strings.HasPrefix(id, "anthropic:") {
			t.Fatalf("%s is listed without an anthropic key (%v)", id, ids)
		}
	}
	mustStatus(t, ts.Do("GET", "/openai/v1/models/ollama/qwen3:0.6b", servertest.AdminKey, nil), 200)
	mustStatus(t, ts.Do("GET", "/openai/v1/models/hearth:hash-embed", servertest.AdminKey, nil), 200)
}
