package providers_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/fake"
)

// target is one adapter under the conformance suite, with its fake.
type target struct {
	provider   string
	model      string
	embedModel string
	newFake    func() *fake.Server
	noTools    bool
}

// targets lists every known provider with its fake; a provider without a
// target fails the suite instead of going untested.
func targets(t testing.TB) []target {
	ts := []target{
		{provider: "openai", model: "gpt-4o-mini", embedModel: "text-embedding-3-small", newFake: fake.NewOpenAI},
		{provider: "anthropic", model: "claude-sonnet-4-5", newFake: fake.NewAnthropic},
		{provider: "google", model: "gemini-2.5-flash-lite", embedModel: "text-embedding-004", newFake: fake.NewGemini},
		{provider: "cohere", model: "command-a-03-2025", embedModel: "embed-v4.0", newFake: fake.NewCohere},
	}
	compat := map[string]target{
		"groq":              {model: "llama-3.3-70b-versatile"},
		"together":          {model: "meta-llama/Llama-3.3-70B-Instruct-Turbo", embedModel: "BAAI/bge-base-en-v1.5"},
		"fireworks":         {model: "accounts/fireworks/models/llama-v3p3-70b-instruct", embedModel: "nomic-ai/nomic-embed-text-v1.5"},
		"deepseek":          {model: "deepseek-v4-flash"},
		"mistral":           {model: "mistral-small-latest", embedModel: "mistral-embed"},
		"xai":               {model: "grok-3"},
		"perplexity":        {model: "sonar", noTools: true},
		"openrouter":        {model: "openai/gpt-4o-mini"},
		"ollama":            {model: "llama3.2", embedModel: "nomic-embed-text"},
		"openai-compatible": {model: "local-model", embedModel: "local-embed"},
	}
	for _, p := range providers.KnownProviders() {
		if tg, ok := compat[p]; ok {
			host := p
			tg.provider, tg.newFake = p, func() *fake.Server { return fake.NewOpenAIHost(host) }
			if p == "deepseek" {
				tg.newFake = fake.NewDeepSeek
			}
			ts = append(ts, tg)
		} else if !slices.ContainsFunc(ts, func(tg target) bool { return tg.provider == p }) {
			t.Errorf("provider %q has no conformance target: add it to targets (to compat for an OpenAI-compatible host)", p)
		}
	}
	return ts
}

var weatherTool = engine.Tool{Type: "function", Function: engine.ToolFunction{Name: "get_weather", Description: "Weather for a place",
	Parameters: json.RawMessage(`{"type":"object","properties":{"loc":{"type":"string"}},"required":["loc"],"additionalProperties":false}`)}}

var twoCalls = []fake.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"loc":"SF"}`}, {ID: "call_2", Name: "t2", Arguments: `{}`}}

// TestConformance runs the same cases against every adapter through its fake.
func TestConformance(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.provider, func(t *testing.T) {
			f := tg.newFake()
			defer f.Close()
			reg := newRegistry(t, tg.provider, f, &sleeps{})
			ref := engine.ModelRef{Provider: tg.provider, Model: tg.model}
			m, err := reg.ChatModel(ref)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			req := func() *engine.ChatRequest {
				return &engine.ChatRequest{Model: tg.model, APIKey: "test-key",
					Messages: []engine.Message{{Role: "system", Content: engine.TextContent("Be brief.")}, userMsg("Hi there")}}
			}
			reset := func(r fake.Reply) { f.Reset(); f.SetDefault(r) }

			t.Run("chat", func(t *testing.T) {
				reset(fake.Reply{Text: "Hello world, from a fake."})
				resp, err := m.Chat(ctx, req())
				if err != nil {
					t.Fatal(err)
				}
				ch := resp.Choices[0]
				if ch.Message.Content == nil || *ch.Message.Content != "Hello world, from a fake." || ch.FinishReason != "stop" {
					t.Errorf("got content %v finish %q", ch.Message.Content, ch.FinishReason)
				}
				if resp.Usage.PromptTokens != 12 || resp.Usage.CompletionTokens != 5 || resp.Usage.TotalTokens != 17 {
					t.Errorf("usage %+v", resp.Usage)
				}
				checkAuth(t, f.Kind(), f.LastRequest())
			})

			t.Run("stream", func(t *testing.T) {
				reset(fake.Reply{Text: "Hello world, from a fake."})
				s, err := m.ChatStream(ctx, req())
				if err != nil {
					t.Fatal(err)
				}
				a, err := collect(t, s)
				if err != nil {
					t.Fatal(err)
				}
				if a.text != "Hello world, from a fake." || a.finish != "stop" {
					t.Errorf("assembled %q finish %q", a.text, a.finish)
				}
				if a.chunks < 4 {
					t.Errorf("only %d chunks; the fake splits text", a.chunks)
				}
				body := f.LastRequest().JSON()
				if _, asked := body["stream_options"]; f.Kind() != "openai" || asked {
					if a.usage == nil || a.usage.PromptTokens != 12 || a.usage.CompletionTokens != 5 {
						t.Errorf("stream usage %+v", a.usage)
					}
				}
			})

			if !tg.noTools {
				treq := func() *engine.ChatRequest {
					r := req()
					r.Tools = []engine.Tool{weatherTool, {Type: "function", Function: engine.ToolFunction{Name: "t2"}}}
					r.ToolChoice = &engine.ToolChoice{Mode: "auto"}
					return r
				}
				t.Run("tool call", func(t *testing.T) {
					reset(fake.Reply{ToolCalls: twoCalls})
					resp, err := m.Chat(ctx, treq())
					if err != nil {
						t.Fatal(err)
					}
					checkCalls(t, tg, resp.Choices[0].Message.ToolCalls)
					if resp.Choices[0].FinishReason != "tool_calls" {
						t.Errorf("finish %q", resp.Choices[0].FinishReason)
					}
					if !strings.Contains(string(f.LastRequest().Body), "get_weather") {
						t.Errorf("tools not sent upstream: %s", f.LastRequest().Body)
					}
				})
				t.Run("tool call stream", func(t *testing.T) {
					reset(fake.Reply{ToolCalls: twoCalls})
					s, err := m.ChatStream(ctx, treq())
					if err != nil {
						t.Fatal(err)
					}
					a, err := collect(t, s)
					if err != nil {
						t.Fatal(err)
					}
					checkCalls(t, tg, a.calls)
					if a.finish != "tool_calls" {
						t.Errorf("finish %q", a.finish)
					}
				})
				t.Run("tool round trip", func(t *testing.T) {
					reset(fake.Reply{Text: "It is sunny."})
					r := req()
					r.Tools = []engine.Tool{weatherTool}
					r.Messages = append(r.Messages,
						engine.Message{Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "call_1", Type: "function", Function: engine.FunctionCall{Name: "get_weather", Arguments: `{"loc":"SF"}`}}}},
						engine.Message{Role: "tool", ToolCallID: "call_1", Content: engine.TextContent(`{"temp":21}`)})
					resp, err := m.Chat(ctx, r)
					if err != nil {
						t.Fatal(err)
					}
					if *resp.Choices[0].Message.Content != "It is sunny." {
						t.Errorf("content %q", *resp.Choices[0].Message.Content)
					}
					if b := string(f.LastRequest().Body); !strings.Contains(b, "call_1") && tg.provider != "mistral" || !strings.Contains(b, "21") {
						t.Errorf("tool result not sent upstream: %s", b)
					}
				})
			}

			t.Run("json mode", func(t *testing.T) {
				reset(fake.Reply{JSON: `{"city":"Paris"}`})
				r := req()
				r.ResponseFormat = &engine.ResponseFormat{Type: "json_schema", JSONSchema: &engine.JSONSchema{Name: "answer",
					Schema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`)}}
				resp, err := m.Chat(ctx, r)
				if err != nil {
					t.Fatal(err)
				}
				var got map[string]string
				if err := json.Unmarshal([]byte(*resp.Choices[0].Message.Content), &got); err != nil || got["city"] != "Paris" {
					t.Errorf("json content %q (%v)", *resp.Choices[0].Message.Content, err)
				}
				if resp.Choices[0].FinishReason != "stop" {
					t.Errorf("finish %q", resp.Choices[0].FinishReason)
				}
				s, err := m.ChatStream(ctx, r)
				if err != nil {
					t.Fatal(err)
				}
				a, err := collect(t, s)
				if err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal([]byte(a.text), &got); err != nil || got["city"] != "Paris" || a.finish != "stop" {
					t.Errorf("json stream %q finish %q (%v)", a.text, a.finish, err)
				}
			})

			if tg.embedModel != "" {
				t.Run("embeddings", func(t *testing.T) {
					reset(fake.Reply{EmbedDims: 8})
					e, err := reg.Embedder(engine.ModelRef{Provider: tg.provider, Model: tg.embedModel})
					if err != nil {
						t.Fatal(err)
					}
					if e.MaxBatch() < 1 {
						t.Errorf("MaxBatch %d", e.MaxBatch())
					}
					vs, err := e.Embed(ctx, &engine.EmbedRequest{Model: tg.embedModel, Inputs: []string{"a", "b", "c"}, Purpose: engine.EmbedQuery, APIKey: "test-key"})
					if err != nil {
						t.Fatal(err)
					}
					if len(vs) != 3 || len(vs[0]) != 8 || vs[0][0] == vs[1][0] {
						t.Errorf("vectors %v", vs)
					}
					checkAuth(t, f.Kind(), f.LastRequest())
				})
			} else {
				if _, err := reg.Embedder(engine.ModelRef{Provider: tg.provider, Model: "x"}); code(err) != engine.CodeBadRequest {
					t.Errorf("Embedder on a chat-only provider: %v", err)
				}
			}

			t.Run("errors", func(t *testing.T) {
				reset(fake.Reply{})
				f.Enqueue(fake.Reply{Status: 401})
				_, err := m.Chat(ctx, req())
				e := asEngine(t, err)
				if e.Code != engine.CodeBadRequest || !strings.Contains(e.Message, tg.provider+" rejected the provider API key") {
					t.Errorf("401 -> %v", err)
				}
				if f.Count() != 1 {
					t.Errorf("401 was retried: %d requests", f.Count())
				}

				reset(fake.Reply{})
				f.Enqueue(fake.Reply{Status: 400, Message: "model_not_found: no such model"})
				_, err = m.Chat(ctx, req())
				if e := asEngine(t, err); e.Code != engine.CodeBadRequest || !strings.Contains(e.Message, "no such model") {
					t.Errorf("400 -> %v", err)
				}

				reset(fake.Reply{Status: 429, RetryAfter: "1"})
				_, err = m.Chat(ctx, req())
				if e := asEngine(t, err); e.Code != engine.CodeRateLimited || e.RetryAfter != 1 {
					t.Errorf("429 -> %v (retry after %d)", err, e.RetryAfter)
				}
				if f.Count() != testRetry.MaxAttempts {
					t.Errorf("429: %d requests, want %d", f.Count(), testRetry.MaxAttempts)
				}

				reset(fake.Reply{Status: 500})
				_, err = m.ChatStream(ctx, req())
				if code(err) != engine.CodeUpstream || f.Count() != testRetry.MaxAttempts {
					t.Errorf("500 -> %v after %d requests", err, f.Count())
				}

				reset(fake.Reply{})
				f.Enqueue(fake.Reply{Status: 503}, fake.Reply{Status: 500})
				if _, err := m.Chat(ctx, req()); err != nil || f.Count() != 3 {
					t.Errorf("recovery after two 5xx: %v, %d requests", err, f.Count())
				}
			})

			t.Run("truncated stream", func(t *testing.T) {
				reset(fake.Reply{Text: "cut short here", Truncate: true})
				s, err := m.ChatStream(ctx, req())
				if err != nil {
					t.Fatal(err)
				}
				_, err = collect(t, s)
				if err == nil || code(err) != engine.CodeUpstream || !strings.Contains(err.Error(), "ended before") {
					t.Errorf("truncated stream -> %v", err)
				}
				if f.Count() != 1 {
					t.Errorf("truncated stream retried: %d requests", f.Count())
				}
			})
		})
	}
}

func checkCalls(t *testing.T, tg target, calls []engine.ToolCall) {
	t.Helper()
	if len(calls) != 2 {
		t.Fatalf("tool calls %+v", calls)
	}
	for i, want := range twoCalls {
		got := calls[i]
		if got.Function.Name != want.Name || got.Type != "function" || got.ID == "" || got.Index != nil {
			t.Errorf("call %d: %+v", i, got)
		}
		var g, w any
		json.Unmarshal([]byte(got.Function.Arguments), &g)
		json.Unmarshal([]byte(want.Arguments), &w)
		gb, _ := json.Marshal(g)
		wb, _ := json.Marshal(w)
		if string(gb) != string(wb) {
			t.Errorf("call %d arguments %q, want %q", i, got.Function.Arguments, want.Arguments)
		}
	}
}

func checkAuth(t *testing.T, kind string, r fake.Request) {
	t.Helper()
	switch kind {
	case "openai", "cohere":
		if got := r.Header.Get("Authorization"); got != "Bearer test-key" {
			t.Errorf("Authorization %q", got)
		}
	case "anthropic":
		if r.Header.Get("X-Api-Key") != "test-key" || r.Header.Get("Anthropic-Version") == "" || r.Header.Get("Authorization") != "" {
			t.Errorf("anthropic headers %v", r.Header)
		}
	case "gemini":
		if r.Header.Get("X-Goog-Api-Key") != "test-key" || strings.Contains(r.Query, "key=") {
			t.Errorf("gemini headers %v query %q", r.Header, r.Query)
		}
	}
}
