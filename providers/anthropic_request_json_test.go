package providers

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// checkAntRequestSameAsJSON fails unless encodeAnthropicRequest writes
// what marshalWithExtra writes for r; it reports whether the hand-written
// appender took r.
func checkAntRequestSameAsJSON(t *testing.T, r *antRequest, extra map[string]json.RawMessage) bool {
	t.Helper()
	want, wantErr := marshalWithExtra(r, extra)
	got, err := encodeAnthropicRequest(r, extra)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("error %v, encoding/json %v", err, wantErr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
	_, hand := appendAnthropicRequest(nil, r)
	return hand && len(extra) == 0
}

// antShapes are requestShapes with an assistant turn that echoes thinking
// blocks (raw, with white space and escapes), a data-URL image and a
// parallel-tool-calls switch, for models of every Anthropic rule.
func antShapes() []*engine.ChatRequest {
	shapes := requestShapes()
	thinking := engine.ToolCall{ID: "toolu_1", Type: "function", Function: engine.FunctionCall{Name: "search", Arguments: `{"q": "x"}`},
		ExtraContent: json.RawMessage(`{"anthropic": {"thinking": [ {"type": "thinking", "thinking": "a <b> & c", "signature": "s1"}, {"type":"redacted_thinking","data":"xyz"} ]}}`)}
	msgs := slices.Clone(shapes[2].Messages)
	msgs = append(msgs, engine.Message{Role: "assistant", Content: engine.TextContent("calling"), ToolCalls: []engine.ToolCall{thinking}},
		engine.Message{Role: "tool", ToolCallID: "toolu_1", Content: engine.TextContent("result <1>"), CacheControl: json.RawMessage(`{"type": "ephemeral"}`)},
		engine.Message{Role: "user", Content: engine.Content{Set: true, Parts: []engine.ContentPart{
			{Type: "image_url", ImageURL: &engine.ImageURL{URL: "data:image/png;base64,iVBORw0KGgo="}, CacheControl: json.RawMessage(`{"type":"ephemeral","ttl":"1h"}`)}}}})
	tools := slices.Clone(shapes[2].Tools)
	tools[0].CacheControl = json.RawMessage(`{"type":"ephemeral"}`)
	return append(shapes,
		&engine.ChatRequest{Model: "claude-sonnet-4-5", Messages: msgs, Tools: tools, ParallelToolCalls: ptr(false), ReasoningEffort: "medium"},
		&engine.ChatRequest{Model: "claude-opus-4-6", Messages: msgs, ReasoningEffort: "high", ResponseFormat: shapes[6].ResponseFormat},
		&engine.ChatRequest{Model: "claude-3-5-haiku", Messages: msgs, ResponseFormat: shapes[6].ResponseFormat, Temperature: ptr(0.3), TopP: ptr(0.9)},
	)
}

func TestEncodeAnthropicRequestMatchesEncodingJSON(t *testing.T) {
	models := []string{"", "claude-3-7-sonnet-latest", "claude-3-5-haiku", "claude-opus-4-6", "claude-sonnet-4-5", "claude-opus-4-1", "claude-next"}
	for i, req := range antShapes() {
		for _, model := range models {
			for _, effort := range []string{"", "low", "high"} {
				for _, stream := range []bool{false, true} {
					q := *req
					if model != "" {
						q.Model = model
					}
					if effort != "" {
						q.ReasoningEffort = effort
					}
					if !checkAntRequestSameAsJSON(t, buildAnthropicRequest(&q, stream), nil) {
						t.Errorf("request %d (%s, %q, stream %v): not taken by the hand-written appender", i, q.Model, effort, stream)
					}
				}
			}
		}
	}
}

func TestEncodeAnthropicRequestFallsBack(t *testing.T) {
	base := func() *antRequest { return buildAnthropicRequest(antShapes()[len(antShapes())-3], false) }
	cases := map[string]func(r *antRequest) map[string]json.RawMessage{
		"extra": func(r *antRequest) map[string]json.RawMessage {
			return map[string]json.RawMessage{"top_k": json.RawMessage(`5`), "messages": json.RawMessage(`[]`)}
		},
		"NaN temperature": func(r *antRequest) map[string]json.RawMessage { r.Temperature = ptr(math.NaN()); return nil },
		"invalid raw block": func(r *antRequest) map[string]json.RawMessage {
			r.Messages[0].Content[0].raw = json.RawMessage(`{`)
			return nil
		},
		"empty raw block": func(r *antRequest) map[string]json.RawMessage {
			r.Messages[0].Content[0].raw = json.RawMessage{}
			return nil
		},
		"invalid input": func(r *antRequest) map[string]json.RawMessage {
			r.Messages[0].Content[0].Input = json.RawMessage(`nope`)
			return nil
		},
		"invalid schema": func(r *antRequest) map[string]json.RawMessage {
			r.Tools[0].InputSchema = json.RawMessage(`{"a"}`)
			return nil
		},
		"invalid format": func(r *antRequest) map[string]json.RawMessage {
			r.OutputConfig = &antOutput{Format: &antFormat{Type: "json_schema", Schema: json.RawMessage(`[`)}}
			return nil
		},
		"invalid tool result": func(r *antRequest) map[string]json.RawMessage {
			r.Messages[0].Content[0].Content = json.RawMessage(`"`)
			return nil
		},
	}
	for name, edit := range cases {
		r := base()
		extra := edit(r)
		if checkAntRequestSameAsJSON(t, r, extra) {
			t.Errorf("%s: taken by the hand-written appender", name)
		}
	}
}

func FuzzEncodeAnthropicRequest(f *testing.F) {
	f.Add("claude-sonnet-4-5", "hello", `{"type":"object"}`, 0.7, uint16(0xffff))
	f.Add("<m>", "\u2028\xff", ` [1, {"a" : "<b>"}] `, math.Inf(1), uint16(0x5555))
	f.Add("", "", "", 1e-7, uint16(0))
	f.Fuzz(func(t *testing.T, model, text, raw string, num float64, bits uint16) {
		req := *antShapes()[len(antShapes())-3]
		on := func(i int) bool { return bits&(1<<i) != 0 }
		req.Model = model
		req.Messages = append(slices.Clone(req.Messages), engine.Message{Role: "user", Content: engine.TextContent(text)},
			engine.Message{Role: "assistant", Content: engine.TextContent(text), ToolCalls: []engine.ToolCall{{ID: text, Function: engine.FunctionCall{Name: text, Arguments: raw}}}})
		if on(0) {
			req.Tools = append(slices.Clone(req.Tools), engine.Tool{Type: "function", Function: engine.ToolFunction{Name: text, Parameters: json.RawMessage(raw)}})
		}
		if on(1) {
			req.Temperature, req.TopP = &num, &num
		}
		if on(2) {
			req.ResponseFormat = &engine.ResponseFormat{Type: "json_schema", JSONSchema: &engine.JSONSchema{Name: text, Schema: json.RawMessage(raw)}}
		}
		if on(3) {
			req.Stop = []string{text, raw}
		}
		if on(4) {
			req.ReasoningEffort = text
		}
		var extra map[string]json.RawMessage
		if on(5) {
			extra = map[string]json.RawMessage{text: json.RawMessage(raw)}
		}
		r := buildAnthropicRequest(&req, on(6))
		if on(7) && len(r.Messages) > 0 {
			r.Messages[0].Content = append(r.Messages[0].Content, antBlock{raw: json.RawMessage(raw)})
		}
		checkAntRequestSameAsJSON(t, r, extra)
	})
}

func BenchmarkEncodeAnthropicRequest(b *testing.B) {
	r := buildAnthropicRequest(requestShapes()[1], false)
	b.Run("hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			encodeAnthropicRequest(r, nil)
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			marshalWithExtra(r, nil)
		}
	})
}

// TestAnthropicSystemCacheControl: a system prompt with a cache_control
// breakpoint goes as text blocks (the breakpoint on its block); without
// one it stays a string.
func TestAnthropicSystemCacheControl(t *testing.T) {
	cc := json.RawMessage(`{"type":"ephemeral"}`)
	req := &engine.ChatRequest{Model: "claude-sonnet-4-5", Messages: []engine.Message{
		{Role: "system", Content: engine.Content{Set: true, Parts: []engine.ContentPart{{Type: "text", Text: "a"}, {Type: "text", Text: "b", CacheControl: cc}}}},
		{Role: "user", Content: engine.TextContent("hi"), CacheControl: cc}}}
	body, err := encodeAnthropicRequest(buildAnthropicRequest(req, false), map[string]json.RawMessage{"top_k": json.RawMessage("3")})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		System   json.RawMessage `json:"system"`
		Messages json.RawMessage `json:"messages"`
		TopK     int             `json:"top_k"`
	}
	json.Unmarshal(body, &got)
	if string(got.System) != `[{"type":"text","text":"a"},{"type":"text","text":"b","cache_control":{"type":"ephemeral"}}]` ||
		string(got.Messages) != `[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}]` || got.TopK != 3 {
		t.Fatalf("body %s", body)
	}
	req.Messages[0].Content.Parts[1].CacheControl = nil
	body, _ = encodeAnthropicRequest(buildAnthropicRequest(req, false), nil)
	json.Unmarshal(body, &got)
	if string(got.System) != `"a\n\nb"` {
		t.Fatalf("system without breakpoints %s", got.System)
	}
}
