package providers

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// TestEmbedDimensionsWire: EmbedRequest.Dimensions reaches each host in
// the field its API reads, and models that make one size are refused
// with a 400 naming dimensions before any call.
func TestEmbedDimensionsWire(t *testing.T) {
	var mu sync.Mutex
	var last map[string]any
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		calls++
		last = nil
		json.Unmarshal(b, &last)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(r.URL.Path, ":batchEmbedContents"):
			io.WriteString(w, `{"embeddings":[{"values":[0.1,0.2]}]}`)
		case strings.HasSuffix(r.URL.Path, "/embed"):
			io.WriteString(w, `{"embeddings":{"float":[[0.1,0.2]]}}`)
		default:
			io.WriteString(w, `{"data":[{"index":0,"embedding":[0.1,0.2]}]}`)
		}
	}))
	defer srv.Close()
	cfg := Config{Providers: map[string]ProviderConfig{}, Retry: RetryPolicy{MaxAttempts: 1}}
	for _, p := range []string{"openai", "mistral", "google", "cohere", "together", "ollama"} {
		cfg.Providers[p] = ProviderConfig{BaseURL: srv.URL + "/v1", APIKey: "k"}
	}
	reg, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		provider, model string
		// field is the body path that must hold 2; "" means refused.
		field string
	}{
		{"openai", "text-embedding-3-small", "dimensions"},
		{"openai", "text-embedding-ada-002", ""},
		{"mistral", "codestral-embed", "output_dimension"},
		{"mistral", "mistral-embed", ""},
		{"google", "gemini-embedding-001", "requests.0.outputDimensionality"},
		{"cohere", "embed-v4.0", "output_dimension"},
		{"cohere", "embed-multilingual-v3.0", ""},
		{"together", "BAAI/bge-large-en-v1.5", ""},
		{"ollama", "nomic-embed-text", "dimensions"},
	} {
		emb, err := reg.Embedder(engine.ModelRef{Provider: tc.provider, Model: tc.model})
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		before := calls
		mu.Unlock()
		_, err = emb.Embed(context.Background(), &engine.EmbedRequest{Model: tc.model, Inputs: []string{"x"}, APIKey: "k", Dimensions: 2})
		mu.Lock()
		got, n := last, calls-before
		mu.Unlock()
		if tc.field == "" {
			var ee *engine.Error
			if err == nil || !errors.As(err, &ee) || ee.Field != "dimensions" || n != 0 {
				t.Fatalf("%s:%s: want a refusal naming dimensions before any call, got %v (%d calls)", tc.provider, tc.model, err, n)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s:%s: %v", tc.provider, tc.model, err)
		}
		var v any = got
		for _, part := range strings.Split(tc.field, ".") {
			switch x := v.(type) {
			case map[string]any:
				v = x[part]
			case []any:
				v = x[0]
			}
		}
		if v != 2.0 {
			t.Fatalf("%s:%s: %s = %v in %v", tc.provider, tc.model, tc.field, v, got)
		}
	}
}
