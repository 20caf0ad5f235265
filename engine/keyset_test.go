package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// stubProviders is the smallest engine.Providers for key-resolution tests.
type stubProviders struct {
	serverKeys map[string]string
	keyless    map[string]bool
}

func (s stubProviders) ChatModel(engine.ModelRef) (engine.ChatModel, error) { return nil, nil }
func (s stubProviders) Embedder(engine.ModelRef) (engine.Embedder, error)   { return nil, nil }
func (s stubProviders) Moderator(string) (engine.Moderator, error)          { return nil, nil }
func (s stubProviders) ServerKey(p string) string                           { return s.serverKeys[p] }
func (s stubProviders) NeedsKey(p string) bool                              { return !s.keyless[p] }
func (s stubProviders) Known(p string) bool {
	return p == "openai" || p == "anthropic" || p == "ollama"
}
func (s stubProviders) Cost(engine.ModelRef, int, int) (float64, bool) { return 0, false }
func (s stubProviders) Catalogue() map[string][]engine.ModelInfo       { return nil }

func TestKeysetResolveOrder(t *testing.T) {
	_, store := newAccounts(t)
	prov := stubProviders{serverKeys: map[string]string{"openai": "server-key"}, keyless: map[string]bool{"ollama": true}}
	ks, err := engine.NewKeysets(store, prov, make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	resolve := func(provider, header string) string {
		t.Helper()
		k, err := ks.Resolve(ctx, provider, header, "pipe_1", "alice")
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	if got := resolve("openai", ""); got != "server-key" {
		t.Fatalf("server key: %q", got)
	}
	ks.Set(ctx, engine.OwnerScope("alice"), "openai", "owner-key")
	if got := resolve("openai", ""); got != "owner-key" {
		t.Fatalf("owner keyset over server key: %q", got)
	}
	ks.Set(ctx, engine.PipeScope("pipe_1"), "openai", "pipe-key")
	if got := resolve("openai", ""); got != "pipe-key" {
		t.Fatalf("pipe keyset over owner keyset: %q", got)
	}
	if got := resolve("openai", "header-key"); got != "header-key" {
		t.Fatalf("request header wins: %q", got)
	}
	if got := resolve("ollama", ""); got != "" {
		t.Fatalf("keyless provider: %q", got)
	}
	_, err = ks.Resolve(ctx, "anthropic", "", "pipe_1", "alice")
	if engine.ErrorCode(err) != engine.CodeBadRequest || !strings.Contains(err.Error(), `"anthropic"`) || !strings.Contains(err.Error(), "LB-LLM-Key") {
		t.Fatalf("missing key error: %v", err)
	}
	// Another owner's keyset is never used.
	if k, _ := ks.Resolve(ctx, "openai", "", "", "bob"); k != "server-key" {
		t.Fatalf("bob got %q", k)
	}
}

func TestKeysetsEncryptedAndMasked(t *testing.T) {
	_, store := newAccounts(t)
	ks, _ := engine.NewKeysets(store, stubProviders{}, make([]byte, 32))
	ctx := context.Background()
	const secret = "sk-very-secret-provider-key-9876"
	if _, err := ks.Set(ctx, engine.OwnerScope("alice"), "OpenAI", secret); err != nil {
		t.Fatal(err)
	}
	store.View(ctx, func(tx engine.Tx) error {
		return tx.Scan("keyset/", "", func(k string, v []byte) error {
			if strings.Contains(string(v), "very-secret") {
				t.Errorf("key stored in clear at %s", k)
			}
			return nil
		})
	})
	list, _ := ks.List(ctx, engine.OwnerScope("alice"))
	if len(list) != 1 || list[0].Provider != "openai" || list[0].Last4 != "9876" {
		t.Fatalf("list %+v", list)
	}
	if _, err := ks.Set(ctx, engine.OwnerScope("alice"), "nosuch", "k"); engine.ErrorCode(err) != engine.CodeBadRequest {
		t.Fatalf("unknown provider: %v", err)
	}
	// A different secret cannot decrypt: a clear error, not garbage.
	other, _ := engine.NewKeysets(store, stubProviders{}, []byte("0123456789abcdef0123456789abcdef"))
	if _, err := other.Resolve(ctx, "openai", "", "", "alice"); err == nil || !strings.Contains(err.Error(), "decrypted") {
		t.Fatalf("wrong secret: %v", err)
	}
	if err := ks.Delete(ctx, engine.OwnerScope("alice"), "openai"); err != nil {
		t.Fatal(err)
	}
	if err := ks.Delete(ctx, engine.OwnerScope("alice"), "openai"); !engine.IsNotFound(err) {
		t.Fatalf("delete missing: %v", err)
	}
}

// TestKeysetPool: a comma-separated key pool is stored whole (the
// provider registry spreads calls over it), listed by each key's last
// four characters; an empty key in the pool is refused.
func TestKeysetPool(t *testing.T) {
	_, store := newAccounts(t)
	ks, err := engine.NewKeysets(store, stubProviders{}, make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e, err := ks.Set(ctx, engine.OwnerScope("alice"), "openai", " sk-first-aaaa, sk-second-bbbb ")
	if err != nil || e.Last4 != "aaaa,bbbb" {
		t.Fatalf("set pool: %+v %v", e, err)
	}
	if k, err := ks.Resolve(ctx, "openai", "", "", "alice"); err != nil || k != "sk-first-aaaa, sk-second-bbbb" {
		t.Fatalf("resolve pool: %q %v", k, err)
	}
	if _, err := ks.Set(ctx, engine.OwnerScope("alice"), "openai", "sk-a,,sk-b"); err == nil || !strings.Contains(err.Error(), "key 2 of the comma-separated pool is empty") {
		t.Fatalf("empty key in pool: %v", err)
	}
}
