package engine_test

import (
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// TestParseModelTarget: the first of ':' and '/' separates the provider;
// pipe: names a pipe, with an optional owner.
func TestParseModelTarget(t *testing.T) {
	for _, tc := range []struct {
		id, provider, model, pipe, owner string
	}{
		{"openai:gpt-4o-mini", "openai", "gpt-4o-mini", "", ""},
		{"openai/gpt-4o-mini", "openai", "gpt-4o-mini", "", ""},
		{"OpenAI/gpt-4o", "openai", "gpt-4o", "", ""},
		{"ollama/llama3.1:8b", "ollama", "llama3.1:8b", "", ""},
		{"ollama:llama3.1:8b", "ollama", "llama3.1:8b", "", ""},
		{"openrouter:meta-llama/llama-3.1-8b", "openrouter", "meta-llama/llama-3.1-8b", "", ""},
		{"pipe:helper", "", "", "helper", ""},
		{"pipe:Acme/helper", "", "", "helper", "acme"},
	} {
		got, err := engine.ParseModelTarget("model", tc.id)
		if err != nil || got.Ref.Provider != tc.provider || got.Ref.Model != tc.model || got.Pipe != tc.pipe || got.Owner != tc.owner {
			t.Fatalf("%s: %+v %v", tc.id, got, err)
		}
	}
	for _, bad := range []string{"", "gpt-4o", ":x", "openai:", "openai/", "pipe:", "pipe:/x", "pipe:a/b/c"} {
		if _, err := engine.ParseModelTarget("model", bad); engine.ErrorCode(err) != engine.CodeBadRequest {
			t.Fatalf("%q: %v", bad, err)
		}
	}
}
