package server_test

import (
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

// GET /v1/providers lists the defaults and every provider with its key
// status for the caller, ready ones first; /v1/me lists a user's members
// as [], never null.
func TestProvidersStatus(t *testing.T) {
	ts := servertest.Start(t, servertest.WithProvider("anthropic", "http://127.0.0.1:1/v1", "sk-ant-server"))
	key := servertest.AdminKey
	mustStatus(t, ts.Do("PUT", "/v1/keysets/openai", key, map[string]string{"key": "sk-owner-key-1234"}), 200)
	r := ts.Do("GET", "/v1/providers", key, nil)
	mustStatus(t, r, 200)
	var got struct {
		DefaultModel          string `json:"default_model"`
		DefaultEmbeddingModel string `json:"default_embedding_model"`
		Providers             []struct {
			Provider, Key string
			Ready         bool
		} `json:"providers"`
	}
	r.JSON(t, &got)
	if got.DefaultModel != "openai:gpt-4o-mini" || got.DefaultEmbeddingModel != "openai:text-embedding-3-large" || len(got.Providers) < 5 {
		t.Fatalf("providers: %s", r.Body)
	}
	head := []struct{ provider, key string }{{"openai", "keyset"}, {"anthropic", "server"}, {"hearth", "not needed"}}
	for i, w := range head {
		if p := got.Providers[i]; p.Provider != w.provider || p.Key != w.key || !p.Ready {
			t.Fatalf("provider %d = %+v, want %v (%s)", i, p, w, r.Body)
		}
	}
	seenMissing := false
	for _, p := range got.Providers[3:] {
		if p.Key == "missing" {
			seenMissing = true
			if p.Ready {
				t.Fatalf("%+v", p)
			}
		} else if seenMissing {
			t.Fatalf("a ready provider after a missing one: %s", r.Body)
		}
	}
	if !seenMissing {
		t.Fatalf("no provider without a key: %s", r.Body)
	}
	if r := ts.Do("GET", "/v1/providers", "", nil); r.Status != 401 {
		t.Fatalf("without a key: %d", r.Status)
	}
	var me map[string]any
	ts.Do("GET", "/v1/me", key, nil).JSON(t, &me)
	if m, ok := me["members"].([]any); !ok || len(m) != 0 {
		t.Fatalf("/v1/me members: %v", me)
	}
}
