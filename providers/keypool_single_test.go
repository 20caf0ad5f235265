package providers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
	"unsafe"

	"github.com/hearth-dev/hearth/engine"
)

// recordingChat is a ChatModel that keeps the request it was given.
type recordingChat struct {
	got  *engine.ChatRequest
	keys []string
}

func (r *recordingChat) Chat(_ context.Context, req *engine.ChatRequest) (*engine.ChatResponse, error) {
	r.got = req
	r.keys = append(r.keys, req.APIKey)
	return &recordedAnswer, nil
}

var recordedAnswer engine.ChatResponse

func (r *recordingChat) ChatStream(context.Context, *engine.ChatRequest) (engine.ChatStream, error) {
	return nil, nil
}

// TestPooledChatSingleKeyPassesRequest: a non-stream chat with one key
// (nothing to trim) reaches the adapter as the caller's request itself,
// not a copy; a key with spaces or a pool still gets
// a copy carrying the key to send, and the caller's request is unchanged.
func TestPooledChatSingleKeyPassesRequest(t *testing.T) {
	inner := &recordingChat{}
	c := pooledChat{inner: inner, pool: newKeyPool(), provider: "openai"}
	ctx := context.Background()
	req := &engine.ChatRequest{Model: "m", APIKey: "sk-one"}
	if _, err := c.Chat(ctx, req); err != nil || inner.got != req {
		t.Fatalf("single key: got %p, want the request %p (%v)", inner.got, req, err)
	}
	for _, key := range []string{" sk-one ", "sk-a,sk-b"} {
		inner.keys = nil
		req := &engine.ChatRequest{Model: "m", APIKey: key}
		if _, err := c.Chat(ctx, req); err != nil || inner.got == req || req.APIKey != key {
			t.Fatalf("key %q: the adapter got the caller's request or it changed (%q)", key, req.APIKey)
		}
		if len(inner.keys) != 1 || (inner.keys[0] != "sk-one" && inner.keys[0] != "sk-a" && inner.keys[0] != "sk-b") {
			t.Fatalf("key %q: sent %q", key, inner.keys)
		}
	}
}

// TestOpenAIChatURLJoinedOnce: the chat completions address of a
// configured host is joined when the registry is built: every call gets
// the same string.
func TestOpenAIChatURLJoinedOnce(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	reg, err := New(Config{Providers: map[string]ProviderConfig{"openai": {BaseURL: srv.URL + "/v1"}},
		Retry: RetryPolicy{MaxAttempts: 1, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	o, ok := reg.chat["openai"].(*OpenAI)
	if !ok {
		t.Fatalf("openai adapter is %T", reg.chat["openai"])
	}
	if got := o.chatCompletionsURL(); got != srv.URL+"/v1/chat/completions" {
		t.Fatalf("chat URL %q", got)
	}
	if unsafe.StringData(o.chatCompletionsURL()) != unsafe.StringData(o.chatCompletionsURL()) {
		t.Fatal("the chat URL is built again on every call")
	}
}

// TestRegistryChatModelPooled: a provider's model resolves to its pooled
// chat adapter, built with the registry.
func TestRegistryChatModelPooled(t *testing.T) {
	reg, err := New(Config{Providers: map[string]ProviderConfig{"openai": {BaseURL: "http://127.0.0.1:1/v1"}}})
	if err != nil {
		t.Fatal(err)
	}
	ref := engine.ModelRef{Provider: "openai", Model: "m"}
	m, err := reg.ChatModel(ref)
	if _, ok := m.(pooledChat); !ok || err != nil {
		t.Fatalf("ChatModel: %T, %v", m, err)
	}
}

// BenchmarkRegistryChatModelAllocs: resolving a model and a single-key
// chat through the pooled adapter allocate nothing (Go 1.26): the adapter
// is built with the registry, and a single key's request is passed on as
// it is.
func BenchmarkRegistryChatModelAllocs(b *testing.B) {
	reg, err := New(Config{Providers: map[string]ProviderConfig{"openai": {BaseURL: "http://127.0.0.1:1/v1"}}})
	if err != nil {
		b.Fatal(err)
	}
	ref := engine.ModelRef{Provider: "openai", Model: "m"}
	b.Run("ChatModel", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := reg.ChatModel(ref); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("single key chat", func(b *testing.B) {
		c := pooledChat{inner: &recordingChat{keys: make([]string, 0, 1)}, pool: newKeyPool(), provider: "openai"}
		req := &engine.ChatRequest{Model: "m", APIKey: "sk-one"}
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			c.inner.(*recordingChat).keys = c.inner.(*recordingChat).keys[:0]
			if _, err := c.Chat(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	})
}
