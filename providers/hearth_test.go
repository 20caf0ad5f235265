package providers_test

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
)

func echoModel(t *testing.T) engine.ChatModel {
	reg, err := providers.New(providers.Config{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := reg.ChatModel(engine.ModelRef{Provider: "hearth", Model: "echo"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestEchoAnswers(t *testing.T) {
	m := echoModel(t)
	ctx := context.Background()
	req := &engine.ChatRequest{Model: "echo", Messages: []engine.Message{{Role: "system", Content: engine.TextContent("sys")}, userMsg("hello  there world")}}
	resp, err := m.Chat(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if got := *resp.Choices[0].Message.Content; got != "hello  there world" || resp.Choices[0].FinishReason != "stop" || resp.Usage.PromptTokens != 4 || resp.Usage.CompletionTokens != 3 {
		t.Errorf("echo = %q %+v", got, resp.Usage)
	}
	s, _ := m.ChatStream(ctx, req)
	a, err := collect(t, s)
	if err != nil || a.text != "hello  there world" || a.chunks < 5 || a.usage == nil {
		t.Errorf("echo stream = %+v, %v", a, err)
	}

	req.MaxTokens = intp(2)
	resp, _ = m.Chat(ctx, req)
	if *resp.Choices[0].Message.Content != "hello there" || resp.Choices[0].FinishReason != "length" {
		t.Errorf("max_tokens: %q %s", *resp.Choices[0].Message.Content, resp.Choices[0].FinishReason)
	}

	req.MaxTokens = nil
	req.ResponseFormat = &engine.ResponseFormat{Type: "json_object"}
	resp, _ = m.Chat(ctx, req)
	var obj map[string]string
	if err := json.Unmarshal([]byte(*resp.Choices[0].Message.Content), &obj); err != nil || obj["echo"] != "hello  there world" {
		t.Errorf("json mode: %q", *resp.Choices[0].Message.Content)
	}
}

func TestEchoToolCalls(t *testing.T) {
	m := echoModel(t)
	ctx := context.Background()
	tools := []engine.Tool{weatherTool, {Type: "function", Function: engine.ToolFunction{Name: "t2"}}}
	req := &engine.ChatRequest{Model: "echo", Tools: tools, Messages: []engine.Message{userMsg(`please call_tool:get_weather {"loc":"SF"} now`)}}
	resp, _ := m.Chat(ctx, req)
	c := resp.Choices[0]
	if c.FinishReason != "tool_calls" || len(c.Message.ToolCalls) != 1 || c.Message.ToolCalls[0].Function.Arguments != `{"loc":"SF"}` || c.Message.Content != nil {
		t.Errorf("directive: %+v", c)
	}
	s, _ := m.ChatStream(ctx, req)
	a, err := collect(t, s)
	if err != nil || len(a.calls) != 1 || a.calls[0].Function.Arguments != `{"loc":"SF"}` || a.finish != "tool_calls" {
		t.Errorf("directive stream: %+v %v", a, err)
	}

	// A forced function is called even without a directive.
	req = &engine.ChatRequest{Model: "echo", Tools: tools, ToolChoice: &engine.ToolChoice{Function: "t2"}, Messages: []engine.Message{userMsg("hi")}}
	resp, _ = m.Chat(ctx, req)
	if tc := resp.Choices[0].Message.ToolCalls; len(tc) != 1 || tc[0].Function.Name != "t2" || tc[0].Function.Arguments != "{}" {
		t.Errorf("forced: %+v", tc)
	}
	// No tools offered: the directive is just text.
	req = &engine.ChatRequest{Model: "echo", Messages: []engine.Message{userMsg("call_tool:get_weather {}")}}
	resp, _ = m.Chat(ctx, req)
	if resp.Choices[0].Message.ToolCalls != nil {
		t.Error("tool called without tools offered")
	}
	// After the tool result, it answers instead of calling again.
	req = &engine.ChatRequest{Model: "echo", Tools: tools, Messages: []engine.Message{userMsg("call_tool:get_weather {}"),
		{Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "call_echo_0", Type: "function", Function: engine.FunctionCall{Name: "get_weather", Arguments: "{}"}}}},
		{Role: "tool", ToolCallID: "call_echo_0", Content: engine.TextContent("21C")}}}
	resp, _ = m.Chat(ctx, req)
	if c := resp.Choices[0]; c.Message.Content == nil || *c.Message.Content != "tool result: 21C" {
		t.Errorf("after tool result: %+v", c)
	}
}

func TestHashEmbed(t *testing.T) {
	reg, _ := providers.New(providers.Config{})
	e, err := reg.Embedder(engine.ModelRef{Provider: "hearth", Model: "hash-embed"})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := e.Embed(context.Background(), &engine.EmbedRequest{Model: "hash-embed",
		Inputs: []string{"The cat sat on the mat", "the cat sat on a mat", "quarterly revenue grew", ""}})
	if err != nil {
		t.Fatal(err)
	}
	dot := func(a, b []float32) float64 {
		var s float64
		for i := range a {
			s += float64(a[i]) * float64(b[i])
		}
		return s
	}
	for i, v := range vs {
		if len(v) != providers.HashEmbedDims || math.Abs(dot(v, v)-1) > 1e-5 {
			t.Errorf("vector %d: len %d norm² %v", i, len(v), dot(v, v))
		}
	}
	if dot(vs[0], vs[1]) <= dot(vs[0], vs[2]) {
		t.Error("similar texts are not closer than unrelated ones")
	}
	again := providers.HashVector("The cat sat on the mat")
	for i := range again {
		if again[i] != vs[0][i] {
			t.Fatal("hash-embed is not deterministic")
		}
	}
	if _, err := reg.Embedder(engine.ModelRef{Provider: "hearth", Model: "echo"}); code(err) != engine.CodeBadRequest {
		t.Errorf("hearth:echo as embedder: %v", err)
	}
	mod, _ := reg.Moderator("hearth")
	if r, _ := mod.Moderate(context.Background(), "", []string{"ok", "bad [flag]"}); !r.Flagged {
		t.Error("hearth moderator did not flag")
	}
}
