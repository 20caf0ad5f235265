package providers_test

import (
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
)

// openAIAt returns the chat model gpt-4o of a registry whose provider
// openai is at baseURL (a fake upstream on loopback) with the key "k".
func openAIAt(t testing.TB, baseURL string) engine.ChatModel {
	t.Helper()
	reg, err := providers.New(providers.Config{
		Providers: map[string]providers.ProviderConfig{"openai": {BaseURL: baseURL, APIKey: "k"}},
		Timeout:   5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := reg.ChatModel(engine.ModelRef{Provider: "openai", Model: "gpt-4o"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
