package providers_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
)

// TestModelRulesAgainstStrictFakes sends every canonical parameter to
// current models of each OpenAI-wire host whose fake checks requests as
// the real API does: a parameter the model rejects makes the fake answer
// 400, so the call itself is the test.
func TestModelRulesAgainstStrictFakes(t *testing.T) {
	cases := []struct {
		provider, model, effort string
		present                 map[string]any // key -> value (nil: only presence)
		absent                  []string
	}{
		// OpenAI reasoning models: no stop, no sampling parameters.
		// The o-series also refuses parallel_tool_calls.
		{"openai", "o3", "low", map[string]any{"reasoning_effort": "low", "max_completion_tokens": 100.0}, []string{"stop", "temperature", "max_tokens", "parallel_tool_calls"}},
		{"openai", "o4-mini", "none", map[string]any{"reasoning_effort": "low"}, []string{"stop", "top_p", "parallel_tool_calls"}},
		{"openai", "o3-mini", "high", map[string]any{"reasoning_effort": "high", "tools": nil}, []string{"parallel_tool_calls"}},
		// GPT-6 rejects sampling parameters and stop; it, gpt-5.5 and
		// gpt-5.6 take function tools only at effort "none" (the request
		// offers a tool), gpt-5.2 and gpt-5.4 no other explicit effort.
		{"openai", "gpt-6-sol", "high", map[string]any{"reasoning_effort": "none", "max_completion_tokens": 100.0, "parallel_tool_calls": false},
			[]string{"stop", "temperature", "top_p", "presence_penalty", "frequency_penalty", "max_tokens"}},
		{"openai", "gpt-6-luna", "", map[string]any{"reasoning_effort": "none"}, []string{"temperature"}},
		{"openai", "gpt-5.5", "medium", map[string]any{"reasoning_effort": "none"}, []string{"stop"}},
		{"openai", "gpt-5.6-terra", "", map[string]any{"reasoning_effort": "none"}, []string{"stop"}},
		{"openai", "gpt-5.4", "high", map[string]any{"reasoning_effort": "none"}, []string{"stop"}},
		{"openai", "gpt-5", "none", map[string]any{"reasoning_effort": "minimal"}, []string{"stop", "presence_penalty"}},
		{"openai", "gpt-5-mini", "high", map[string]any{"reasoning_effort": "high"}, []string{"stop"}},
		{"openai", "gpt-5.1", "none", map[string]any{"reasoning_effort": "none"}, []string{"stop"}},
		{"openai", "gpt-4.1", "high", map[string]any{"stop": []any{"END"}, "temperature": 0.5}, []string{"reasoning_effort"}},
		{"openai", "gpt-5-chat-latest", "high", map[string]any{"stop": nil}, []string{"reasoning_effort"}},
		// xAI: every grok-4 is a reasoning model; only some take an effort.
		{"xai", "grok-4", "high", map[string]any{"temperature": 0.5}, []string{"presence_penalty", "frequency_penalty", "stop", "reasoning_effort"}},
		{"xai", "grok-4-fast-reasoning", "low", nil, []string{"presence_penalty", "stop", "reasoning_effort"}},
		{"xai", "grok-4.20-0309-reasoning", "low", nil, []string{"frequency_penalty", "stop", "reasoning_effort"}},
		{"xai", "grok-4.3", "medium", map[string]any{"reasoning_effort": "medium"}, []string{"presence_penalty", "stop"}},
		// grok-4.5 takes low, medium and high (it cannot stop reasoning);
		// grok-build reasons without an effort dial.
		{"xai", "grok-4.5", "medium", map[string]any{"reasoning_effort": "medium"}, []string{"presence_penalty", "frequency_penalty", "stop"}},
		{"xai", "grok-4.5", "none", map[string]any{"reasoning_effort": "low"}, []string{"stop"}},
		{"xai", "grok-build-0.1", "high", nil, []string{"presence_penalty", "frequency_penalty", "stop", "reasoning_effort"}},
		{"xai", "grok-3-mini", "medium", map[string]any{"reasoning_effort": "high"}, []string{"stop"}},
		{"xai", "grok-code-fast-1", "low", nil, []string{"stop", "reasoning_effort"}},
		{"xai", "grok-4-1-fast-non-reasoning", "low", map[string]any{"stop": nil, "presence_penalty": 0.1}, []string{"reasoning_effort"}},
		{"xai", "grok-3", "low", map[string]any{"stop": nil}, []string{"reasoning_effort"}},
		// Groq: gpt-oss has no "none"; qwen3 takes none/default.
		{"groq", "openai/gpt-oss-120b", "none", map[string]any{"reasoning_effort": "low"}, nil},
		{"groq", "openai/gpt-oss-20b", "medium", map[string]any{"reasoning_effort": "medium"}, nil},
		{"groq", "qwen/qwen3-32b", "high", map[string]any{"reasoning_effort": "default"}, nil},
		{"groq", "qwen/qwen3-32b", "none", map[string]any{"reasoning_effort": "none"}, nil},
		{"groq", "llama-3.3-70b-versatile", "high", map[string]any{"temperature": 0.5}, []string{"reasoning_effort"}},
		// DeepSeek V4 takes reasoning_effort low and high (medium is read
		// as high); "none" switches thinking off. No seed, no
		// parallel_tool_calls: its fake refuses unknown fields.
		{"deepseek", "deepseek-v4-pro", "low", map[string]any{"reasoning_effort": "low"}, []string{"seed", "parallel_tool_calls"}},
		{"deepseek", "deepseek-v4-pro", "medium", map[string]any{"reasoning_effort": "high"}, nil},
		{"deepseek", "deepseek-v4-flash", "none", map[string]any{"thinking": map[string]any{"type": "disabled"}}, []string{"reasoning_effort"}},
		// Mistral: the seed is random_seed; tool_choice required is "any".
		{"mistral", "mistral-medium-latest", "low", map[string]any{"random_seed": 7.0, "tool_choice": "any"}, []string{"seed", "reasoning_effort"}},
		// Claude against the Anthropic fake (the request forces a tool):
		// the 5.5-era models refuse forced tools and cannot stop thinking;
		// Claude 5 thinks by default and takes a forced tool with thinking
		// disabled.
		{"anthropic", "claude-opus-5-5", "none", map[string]any{"tool_choice": map[string]any{"type": "auto", "disable_parallel_tool_use": true},
			"output_config": nil, "max_tokens": 100.0}, []string{"thinking", "temperature", "top_p"}},
		{"anthropic", "claude-sonnet-5-5", "high", map[string]any{"tool_choice": nil}, []string{"thinking", "temperature"}},
		{"anthropic", "claude-fable-5-1", "low", map[string]any{"tool_choice": nil}, []string{"thinking", "stop"}},
		{"anthropic", "claude-opus-5", "high", map[string]any{"thinking": map[string]any{"type": "disabled"},
			"tool_choice": map[string]any{"type": "any", "disable_parallel_tool_use": true}}, []string{"temperature"}},
		{"anthropic", "claude-sonnet-5", "none", map[string]any{"thinking": map[string]any{"type": "disabled"}}, []string{"top_p"}},
		{"anthropic", "claude-opus-4-7", "medium", map[string]any{"tool_choice": nil}, []string{"thinking", "temperature"}},
		{"anthropic", "claude-sonnet-4-5", "low", map[string]any{"temperature": 0.5}, []string{"thinking", "top_p"}},
	}
	fakes := map[string]*fake.Server{}
	defer func() {
		for _, f := range fakes {
			f.Close()
		}
	}()
	for _, c := range cases {
		f := fakes[c.provider]
		if f == nil {
			switch c.provider {
			case "anthropic":
				f = fake.NewAnthropic()
			case "deepseek":
				f = fake.NewDeepSeek()
			default:
				f = fake.NewOpenAIHost(c.provider)
			}
			fakes[c.provider] = f
		}
		req := fullRequest(c.model)
		req.ReasoningEffort = c.effort
		body := sentBody(t, c.provider, f, req)
		for k, want := range c.present {
			got, ok := body[k]
			if !ok || (want != nil && !reflect.DeepEqual(got, want)) {
				t.Errorf("%s %s: %s = %v, want %v", c.provider, c.model, k, got, want)
			}
		}
		for _, k := range c.absent {
			if v, ok := body[k]; ok {
				t.Errorf("%s %s: %s sent (%v), the model rejects it", c.provider, c.model, k, v)
			}
		}
	}
}

// TestStrictFakeRejects proves the fakes used above are strict: the
// requests today's rules avoid are refused in each host's error shape.
func TestStrictFakeRejects(t *testing.T) {
	cases := []struct {
		host, body, want string
	}{
		{"openai", `{"model":"o3","messages":[{"role":"user","content":"x"}],"stop":["END"]}`, `"param":"stop"`},
		{"openai", `{"model":"gpt-5","messages":[{"role":"user","content":"x"}],"reasoning_effort":"none"}`, `does not support 'none'`},
		{"openai", `{"model":"o4-mini","messages":[{"role":"user","content":"x"}],"max_tokens":5}`, `Use 'max_completion_tokens'`},
		{"xai", `{"model":"grok-4","messages":[{"role":"user","content":"x"}],"presence_penalty":1}`, `"error":"Unsupported parameter`},
		{"xai", `{"model":"grok-4","messages":[{"role":"user","content":"x"}],"reasoning_effort":"low"}`, `does not support parameter reasoningEffort`},
		{"groq", `{"model":"openai/gpt-oss-20b","messages":[{"role":"user","content":"x"}],"reasoning_effort":"none"}`, `does not support 'none'`},
		{"openai", `{"model":"gpt-4o","messages":[{"role":"user","content":"x"},{"role":"tool","tool_call_id":"c1","content":"r"}]}`, `must be a response to a preceeding message`},
		{"openai", `{"model":"gpt-6-sol","messages":[{"role":"user","content":"x"}],"temperature":0.7}`, `"param":"temperature"`},
		{"openai", `{"model":"o3","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f"}}],"parallel_tool_calls":true}`, `"param":"parallel_tool_calls"`},
		{"openai", `{"model":"gpt-5.6-sol","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f"}}],"reasoning_effort":"low"}`, `Function tools with reasoning_effort are not supported`},
		{"openai", `{"model":"gpt-6-luna","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f"}}]}`, `Function tools with reasoning_effort are not supported`},
		{"openai", `{"model":"gpt-5.4","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f"}}],"reasoning_effort":"high"}`, `Function tools with reasoning_effort are not supported`},
		{"openai", `{"model":"gpt-4o","messages":[{"role":"user","content":"x"}],"foo":1}`, `Unrecognized request argument supplied: foo`},
		{"openai", `{"model":"gpt-4o","messages":[{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"},"extra_content":{}}]},{"role":"tool","tool_call_id":"c1","content":"r"}]}`, `messages[0].tool_calls[0].extra_content`},
		{"openai", `{"model":"gpt-4o","messages":[{"role":"user","content":[{"type":"text","text":"x","cache_control":{}}]}]}`, `messages[0].content[0].cache_control`},
		{"openai", `{"model":"gpt-4o","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f","input_schema":{}}}]}`, `tools[0].function.input_schema`},
		{"openai", `{"model":"gpt-4o","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":{"type":"function","name":"f"}}`, `tool_choice.name`},
		{"xai", `{"model":"grok-build-0.1","messages":[{"role":"user","content":"x"}],"stop":["END"]}`, `"error":"Unsupported parameter`},
		{"xai", `{"model":"grok-4.5","messages":[{"role":"user","content":"x"}],"reasoning_effort":"none"}`, `does not support 'none'`},
		{"openai", `{"model":"gpt-4o","messages":[{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"user","content":"x"}]}`, `must be followed by tool messages`},
	}
	for _, c := range cases {
		f := fake.NewOpenAIHost(c.host)
		resp, err := f.Client().Post(f.BaseURL()+"/chat/completions", "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, 4096)
		n, _ := resp.Body.Read(b)
		resp.Body.Close()
		if resp.StatusCode != 400 || !strings.Contains(string(b[:n]), c.want) {
			t.Errorf("%s %s: %d %s, want 400 with %q", c.host, c.body, resp.StatusCode, b[:n], c.want)
		}
		f.Close()
	}
}

// TestReasoningModelMaxTokensDefault: the Langbase default max_tokens
// (1000) would be spent on hidden reasoning, so reasoning models get a
// larger budget; a value the caller chose is kept.
func TestReasoningModelMaxTokensDefault(t *testing.T) {
	f, ds := fake.NewOpenAIHost("openai"), fake.NewDeepSeek()
	defer f.Close()
	defer ds.Close()
	cases := []struct {
		provider, model string
		maxTokens       int
		field           string
		want            float64
	}{
		{"openai", "o3", 1000, "max_completion_tokens", 25000},
		{"openai", "gpt-5-mini", 1000, "max_completion_tokens", 25000},
		{"openai", "o3", 1200, "max_completion_tokens", 1200},
		{"openai", "gpt-4o", 1000, "max_completion_tokens", 1000},
		{"deepseek", "deepseek-v4-flash", 1000, "max_tokens", 32768},
		{"deepseek", "deepseek-v4-pro", 2000, "max_tokens", 2000},
	}
	for _, c := range cases {
		req := fullRequest(c.model)
		req.MaxTokens = intp(c.maxTokens)
		up := f
		if c.provider == "deepseek" {
			up = ds
		}
		body := sentBody(t, c.provider, up, req)
		if body[c.field] != c.want {
			t.Errorf("%s %s max_tokens %d: sent %s=%v, want %v", c.provider, c.model, c.maxTokens, c.field, body[c.field], c.want)
		}
		if *req.MaxTokens != c.maxTokens {
			t.Errorf("the request was mutated")
		}
	}
}

// TestQuotaExhaustedFailsFast: a 429 meaning the account is out of
// credit, or a daily window is used up, is answered at once (one upstream
// request), as a 400 that says so; a plain rate limit is still retried.
func TestQuotaExhaustedFailsFast(t *testing.T) {
	cases := []struct {
		host  string
		reply fake.Reply
		fast  bool
	}{
		{"openai", fake.Reply{Status: 429, ErrorCode: "insufficient_quota", Message: "You exceeded your current quota, please check your plan and billing details."}, true},
		{"openai", fake.Reply{Status: 429, ErrorCode: "credit_balance_exhausted", Message: "Your credit balance is exhausted."}, true},
		{"groq", fake.Reply{Status: 429, Message: "Rate limit reached for model `llama-3.3-70b-versatile` on tokens per day (TPD): Limit 100000, Used 99990, Requested 120."}, true},
		{"openai", fake.Reply{Status: 429, ErrorCode: "rate_limit_exceeded", Message: "Rate limit reached for gpt-4o on requests per min (RPM)"}, false},
	}
	for _, c := range cases {
		f := fake.NewOpenAIHost(c.host)
		reg := newRegistry(t, c.host, f, &sleeps{})
		m, _ := reg.ChatModel(engine.ModelRef{Provider: c.host, Model: "gpt-4o"})
		f.SetDefault(c.reply)
		_, err := m.Chat(context.Background(), &engine.ChatRequest{Model: "gpt-4o", Messages: []engine.Message{userMsg("hi")}, APIKey: "k"})
		e := asEngine(t, err)
		if c.fast {
			if f.Count() != 1 || e.Code != engine.CodeBadRequest || !strings.Contains(e.Message, "quota exhausted") {
				t.Errorf("%+v: %d requests, %v; want one request and a quota error", c.reply, f.Count(), err)
			}
		} else if f.Count() != testRetry.MaxAttempts || e.Code != engine.CodeRateLimited {
			t.Errorf("%+v: %d requests, %v; want retries and RATE_LIMITED", c.reply, f.Count(), err)
		}
		f.Close()
	}
}

// TestEmbedTokenBatches: 128 chunks of about 200 tokens each are far over
// Mistral's 16384 tokens per request (code 3210): the adapter splits them
// into requests under the cap and returns the vectors in input order.
func TestEmbedTokenBatches(t *testing.T) {
	f := fake.NewOpenAIHost("mistral")
	defer f.Close()
	reg := newRegistry(t, "mistral", f, &sleeps{})
	e, err := reg.Embedder(engine.ModelRef{Provider: "mistral", Model: "mistral-embed"})
	if err != nil {
		t.Fatal(err)
	}
	inputs := make([]string, e.MaxBatch())
	for i := range inputs {
		inputs[i] = strings.Repeat("lorem ipsum dolor sit amet ", 40) + string(rune('a'+i%26))
	}
	vs, err := e.Embed(context.Background(), &engine.EmbedRequest{Model: "mistral-embed", Inputs: inputs, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != len(inputs) || f.Count() < 2 {
		t.Fatalf("%d vectors from %d requests", len(vs), f.Count())
	}
	one, err := e.Embed(context.Background(), &engine.EmbedRequest{Model: "mistral-embed", Inputs: inputs[5:6], APIKey: "k"})
	if err != nil || !reflect.DeepEqual(one[0], vs[5]) {
		t.Errorf("vectors out of order: %v", err)
	}
}
