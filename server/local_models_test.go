package server_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/server/servertest"
)

// /v1/models lists the models a local server has (asked once per TTL),
// and none for a local server that cannot be reached (docs/providers.md).
func TestModelsAskLocalServers(t *testing.T) {
	var asked atomic.Int32
	ollama := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		asked.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"object":"list","data":[{"id":"qwen3:0.6b","object":"model"},{"id":"nomic-embed-text:latest","object":"model"}]}`))
	}))
	defer ollama.Close()
	ts := servertest.Start(t, servertest.WithProvider("ollama", ollama.URL+"/v1", ""), servertest.WithProvider("myvllm", ollama.URL+"/v1", ""))
	var cat map[string][]engine.ModelInfo
	for range 3 {
		r := ts.Do("GET", "/v1/models", "", nil)
		mustStatus(t, r, 200)
		r.JSON(t, &cat)
	}
	want := []engine.ModelInfo{{ID: "ollama:nomic-embed-text:latest", Provider: "ollama", Type: "embedding"}, {ID: "ollama:qwen3:0.6b", Provider: "ollama", Type: "text"}}
	if got := cat["ollama"]; len(got) != 2 || got[0].ID != want[0].ID || got[0].Type != want[0].Type || got[1].ID != want[1].ID || got[1].Type != "text" {
		t.Fatalf("ollama models %+v", got)
	}
	if got := cat["myvllm"]; len(got) != 2 || got[1].ID != "myvllm:qwen3:0.6b" {
		t.Fatalf("extra provider models %+v", got)
	}
	if len(cat["openai"]) == 0 || len(cat["hearth"]) == 0 {
		t.Fatalf("hosted providers missing: %v", cat)
	}
	if n := asked.Load(); n != 2 {
		t.Fatalf("the local server was asked %d times for 3 listings of 2 providers; want once per provider", n)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	ts2 := servertest.Start(t, servertest.WithProvider("ollama", dead, ""))
	r := ts2.Do("GET", "/v1/models", "", nil)
	mustStatus(t, r, 200)
	cat = nil
	r.JSON(t, &cat)
	if _, listed := cat["ollama"]; listed || len(cat["openai"]) == 0 {
		t.Fatalf("an unreachable ollama is listed: %v", cat["ollama"])
	}
}
