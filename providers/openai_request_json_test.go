package providers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// checkRequestSameAsJSON fails unless encodeOpenAIRequest writes what
// marshalWithExtra writes for r, error for error. It reports whether the
// hand-written appender took r.
func checkRequestSameAsJSON(t *testing.T, r *oaiRequest, extra map[string]json.RawMessage) bool {
	t.Helper()
	want, wantErr := marshalWithExtra(r, extra)
	got, err := encodeOpenAIRequest(r, extra)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("error %v, encoding/json %v", err, wantErr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
	_, hand := appendOpenAIRequest(nil, r)
	return hand && len(extra) == 0
}

// requestShapes are the chat requests pipes, the agent and the chat
// completions route send: plain text, system and developer turns,
// multimodal parts, tool definitions and calls (with Gemini and DeepSeek
// extra_content), forced and named tool choices, response formats,
// sampling parameters at their pipe defaults and at edge values,
// reasoning efforts, stop sequences, and text that needs escaping.
func requestShapes() []*engine.ChatRequest {
	params := json.RawMessage(`{ "type": "object", "properties": {"q": {"type": "string", "description": "a <query> & more"}}, "required": ["q"] }`)
	calls := []engine.ToolCall{
		{ID: "call_1", Type: "function", Function: engine.FunctionCall{Name: "search", Arguments: `{"q":"go <1.26>"}`}},
		{ID: "call_2", Type: "function", Function: engine.FunctionCall{Name: "time", Arguments: ""},
			ExtraContent: json.RawMessage(`{"google": {"thought_signature": "c2ln"}}`)},
		{ID: "call_3", Type: "function", Function: engine.FunctionCall{Arguments: "{}"},
			ExtraContent: json.RawMessage(`{"deepseek":{"reasoning_content":"think \u2028 <hard>"}}`)},
	}
	msgs := []engine.Message{
		{Role: "system", Content: engine.TextContent("You are helpful.\nAnswer in \"quotes\" & <tags>.")},
		{Role: "developer", Content: engine.TextContent("dev \u2029 note")},
		{Role: "user", Content: engine.TextContent("Hello, caf\u00e9 \U0001F600 \x01 \xff")},
		{Role: "user", Content: engine.Content{Set: true, Parts: []engine.ContentPart{{Type: "text", Text: "look <here> & \u2028 there"},
			{Type: "image_url", ImageURL: &engine.ImageURL{URL: "https://x.test/a.png?a=1&b=2", Detail: "high"}},
			{Type: "image_url", ImageURL: &engine.ImageURL{URL: "data:image/png;base64,AAAA"}}, {Type: "text"}}}},
		{Role: "user", Content: engine.Content{Set: true, Parts: []engine.ContentPart{}}},
		{Role: "assistant", ToolCalls: calls},
		{Role: "tool", ToolCallID: "call_1", Name: "search", Content: engine.TextContent(`{"results":[]}`)},
		{Role: "assistant", Content: engine.TextContent("")},
		{Role: "user", Name: "bob", Content: engine.TextContent("again")},
	}
	tools := []engine.Tool{
		{Type: "function", Function: engine.ToolFunction{Name: "search", Description: "Search the web", Parameters: params, Strict: ptr(true)}},
		{Type: "function", Function: engine.ToolFunction{Name: "time"}},
		{Type: "function", Function: engine.ToolFunction{Name: "n", Parameters: json.RawMessage(`{}`), Strict: ptr(false)}},
	}
	schema := &engine.ResponseFormat{Type: "json_schema", JSONSchema: &engine.JSONSchema{Name: "answer", Description: "An <answer>",
		Schema: json.RawMessage("{\n  \"type\": \"object\"\n}"), Strict: ptr(true)}}
	one := func(m ...engine.Message) []engine.Message { return m }
	return []*engine.ChatRequest{
		{Model: "gpt-4o-mini", Messages: one(msgs[2])},
		{Model: "gpt-4o-mini", Messages: msgs[:3], Temperature: ptr(0.7), TopP: ptr(1.0), MaxTokens: ptr(1000),
			PresencePenalty: ptr(1.0), FrequencyPenalty: ptr(1.0), Stop: []string{"\n\n", "</end>"}},
		{Model: "gpt-4o", Messages: msgs, Tools: tools, ToolChoice: &engine.ToolChoice{Mode: "auto"}, ParallelToolCalls: ptr(false)},
		{Model: "gpt-4o", Messages: msgs, Tools: tools, ToolChoice: &engine.ToolChoice{Mode: "required"}},
		{Model: "gpt-4o", Messages: msgs, Tools: tools, ToolChoice: &engine.ToolChoice{Function: "search<&>"}},
		{Model: "gpt-4o", Messages: msgs, Tools: tools, ToolChoice: &engine.ToolChoice{Mode: "invalid"}},
		{Model: "gpt-4o", Messages: one(msgs[2]), ResponseFormat: schema},
		{Model: "gpt-4o", Messages: one(msgs[2]), ResponseFormat: &engine.ResponseFormat{Type: "json_object"}},
		{Model: "gpt-4o", Messages: one(msgs[2]), ResponseFormat: &engine.ResponseFormat{Type: "text"}},
		{Model: "o3-mini", Messages: msgs[:3], ReasoningEffort: "high", MaxTokens: ptr(1000), Temperature: ptr(0.2)},
		{Model: "gpt-5", Messages: msgs[:3], ReasoningEffort: "minimal", MaxTokens: ptr(langbaseDefaultMaxTokens)},
		{Model: "deepseek-reasoner", Messages: msgs, Tools: tools, Temperature: ptr(1e-7), TopP: ptr(1e21)},
		{Model: "m", Messages: nil, Temperature: ptr(math.Copysign(0, -1)), Stop: []string{}},
		{Model: "m", Messages: []engine.Message{}, MaxTokens: ptr(-1), PresencePenalty: ptr(-2.0), FrequencyPenalty: ptr(0.5)},
		{Model: "<model>&", Messages: one(engine.Message{Role: "user"})},
	}
}

func TestEncodeOpenAIRequestMatchesEncodingJSON(t *testing.T) {
	names := make([]string, 0, len(hosts))
	for name := range hosts {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for i, req := range requestShapes() {
			for _, stream := range []bool{false, true} {
				if !checkRequestSameAsJSON(t, buildOpenAIRequest(hosts[name], req, stream), nil) {
					t.Errorf("%s request %d (stream %v): not taken by the hand-written appender", name, i, stream)
				}
			}
		}
	}
}

// TestEncodeOpenAIRequestFallsBack covers what the appender leaves to
// encoding/json: custom model parameters, numbers it refuses, invalid raw
// JSON, and tool_choice values of other types.
func TestEncodeOpenAIRequestFallsBack(t *testing.T) {
	base := func() *oaiRequest {
		return buildOpenAIRequest(hosts["openai"], requestShapes()[2], false)
	}
	cases := map[string]func(r *oaiRequest) map[string]json.RawMessage{
		"extra": func(r *oaiRequest) map[string]json.RawMessage {
			return map[string]json.RawMessage{"seed": json.RawMessage(`42`), "model": json.RawMessage(`"x"`), "top_k": json.RawMessage(` 5 `)}
		},
		"NaN temperature":  func(r *oaiRequest) map[string]json.RawMessage { r.Temperature = ptr(math.NaN()); return nil },
		"infinite penalty": func(r *oaiRequest) map[string]json.RawMessage { r.FrequencyPenalty = ptr(math.Inf(-1)); return nil },
		"invalid parameters": func(r *oaiRequest) map[string]json.RawMessage {
			r.Tools[0].Function.Parameters = json.RawMessage(`{"a":`)
			return nil
		},
		"invalid schema": func(r *oaiRequest) map[string]json.RawMessage {
			r.ResponseFormat = requestShapes()[6].ResponseFormat
			r.ResponseFormat.JSONSchema.Schema = json.RawMessage(`nope`)
			return nil
		},
		"invalid extra_content": func(r *oaiRequest) map[string]json.RawMessage {
			r.Messages[5].ToolCalls[0].ExtraContent = json.RawMessage(`{]`)
			return nil
		},
		"tool_choice map": func(r *oaiRequest) map[string]json.RawMessage {
			r.ToolChoice = map[string]string{"type": "auto"}
			return nil
		},
		"tool_choice mode ptr": func(r *oaiRequest) map[string]json.RawMessage {
			r.ToolChoice = &engine.ToolChoice{Mode: "none"}
			return nil
		},
	}
	for name, edit := range cases {
		r := base()
		extra := edit(r)
		if checkRequestSameAsJSON(t, r, extra) {
			t.Errorf("%s: taken by the hand-written appender", name)
		}
	}
}

// TestEncodeOpenAIRequestRandomShapes compares both encoders over
// requests whose every optional field is set or not at random.
func TestEncodeOpenAIRequestRandomShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 5))
	shapes := requestShapes()
	texts := []string{"", "a", "<&>", "\u2028", "\xff", `"\`, "tab\there", strings.Repeat("long ", 100)}
	pick := func() string { return texts[rng.IntN(len(texts))] }
	for range 3000 {
		src := shapes[rng.IntN(len(shapes))]
		r := buildOpenAIRequest(hosts["openai"], src, rng.IntN(2) == 0)
		r.Model = pick()
		if rng.IntN(3) == 0 {
			r.Messages = r.Messages[:rng.IntN(len(r.Messages)+1)]
		}
		for i := range r.Messages {
			if rng.IntN(4) == 0 {
				r.Messages[i].Name, r.Messages[i].ToolCallID = pick(), pick()
			}
			if rng.IntN(6) == 0 {
				r.Messages[i].ReasoningContent = ptr(pick())
			}
		}
		if rng.IntN(3) == 0 {
			r.ToolChoice = pick()
		}
		for _, p := range []**float64{&r.Temperature, &r.TopP, &r.PresencePenalty, &r.FrequencyPenalty} {
			if rng.IntN(2) == 0 {
				*p = ptr(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(50)-25)))
			}
		}
		if rng.IntN(2) == 0 {
			r.MaxTokens, r.MaxCompletionTokens = ptr(rng.IntN(1<<20)), ptr(-rng.IntN(10))
		}
		if rng.IntN(3) == 0 {
			r.Stop = []string{pick(), pick()}
		}
		if rng.IntN(3) == 0 {
			r.ReasoningEffort, r.Reasoning = pick(), &oaiReasoning{Effort: pick()}
		}
		if rng.IntN(3) == 0 {
			r.StreamOptions = &oaiStreamOptions{IncludeUsage: rng.IntN(2) == 0}
		}
		if !checkRequestSameAsJSON(t, r, nil) {
			t.Fatalf("request %+v not taken by the hand-written appender", r)
		}
	}
}

// BenchmarkEncodeOpenAIRequestAllocs: the body of each of the first four
// request shapes is one allocation on Go 1.26 (encoding/json: one per
// message content and tool choice, plus its output copy).
func BenchmarkEncodeOpenAIRequestAllocs(b *testing.B) {
	for i, req := range requestShapes()[:4] {
		r := buildOpenAIRequest(hosts["openai"], req, false)
		b.Run(fmt.Sprintf("shape %d", i), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := encodeOpenAIRequest(r, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func FuzzEncodeOpenAIRequest(f *testing.F) {
	f.Add("gpt-4o", "hello", `{"type":"object"}`, 0.7, uint16(0xffff))
	f.Add("<m>", "\u2028\xff", ` [1, {"a" : "<b>"}] `, math.Inf(1), uint16(0x5555))
	f.Add("", "", "", 1e-7, uint16(0))
	f.Fuzz(func(t *testing.T, model, text, raw string, num float64, bits uint16) {
		req := requestShapes()[2]
		on := func(i int) bool { return bits&(1<<i) != 0 }
		req.Model = model
		req.Messages = append(slices.Clone(req.Messages), engine.Message{Role: text, Content: engine.TextContent(text), Name: text})
		if on(0) {
			req.Tools = append(slices.Clone(req.Tools), engine.Tool{Type: "function", Function: engine.ToolFunction{Name: text, Parameters: json.RawMessage(raw)}})
		}
		if on(1) {
			req.Temperature, req.TopP = &num, &num
		}
		if on(2) {
			req.ResponseFormat = &engine.ResponseFormat{Type: text, JSONSchema: &engine.JSONSchema{Name: text, Schema: json.RawMessage(raw)}}
		}
		if on(3) {
			req.ToolChoice = &engine.ToolChoice{Function: text}
		}
		if on(4) {
			req.Stop = []string{text, raw}
		}
		var extra map[string]json.RawMessage
		if on(5) {
			extra = map[string]json.RawMessage{text: json.RawMessage(raw)}
		}
		r := buildOpenAIRequest(hosts[[]string{"openai", "deepseek", "mistral", "openrouter"}[bits>>14]], req, on(6))
		if on(7) && len(r.Messages) > 5 && len(r.Messages[5].ToolCalls) > 0 {
			r.Messages[5].ToolCalls[0].ExtraContent = json.RawMessage(raw)
		}
		checkRequestSameAsJSON(t, r, extra)
	})
}

func BenchmarkEncodeOpenAIRequest(b *testing.B) {
	r := buildOpenAIRequest(hosts["openai"], requestShapes()[1], false)
	b.Run("hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			encodeOpenAIRequest(r, nil)
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			marshalWithExtra(r, nil)
		}
	})
}

// plainMessages is a chat request of n plain messages (instructions,
// input and, for three, one more input).
func plainMessages(n int) *engine.ChatRequest {
	return &engine.ChatRequest{Model: "gpt-4o-mini", Messages: []engine.Message{
		{Role: "system", Content: engine.TextContent("You are terse.")}, {Role: "user", Content: engine.TextContent("Say something about foxes.")},
		{Role: "user", Content: engine.TextContent("More.")}}[:n]}
}

// TestBuildOpenAIRequestPlainMessages: requests of two and three plain
// messages encode as encoding/json does.
func TestBuildOpenAIRequestPlainMessages(t *testing.T) {
	for _, n := range []int{2, 3} {
		checkRequestSameAsJSON(t, buildOpenAIRequest(hosts["openai"], plainMessages(n), false), nil)
	}
}

// BenchmarkBuildOpenAIRequestAllocs: a request of two plain messages
// (instructions and input) is built in one allocation on Go 1.26, the
// request and its wire messages together; three messages take one more.
func BenchmarkBuildOpenAIRequestAllocs(b *testing.B) {
	for _, n := range []int{2, 3} {
		req := plainMessages(n)
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				buildOpenAIRequest(hosts["openai"], req, false)
			}
		})
	}
}

// TestEncodeOpenAIChatPooled: the body of a two-message chat call built in
// a pooled room is the bytes of the request built fresh, and the room goes
// back to the pool holding nothing of the request.
func TestEncodeOpenAIChatPooled(t *testing.T) {
	req := &engine.ChatRequest{Model: "gpt-4o-mini", Messages: []engine.Message{
		{Role: "system", Content: engine.TextContent("You are terse.")}, {Role: "user", Content: engine.TextContent("Say something about foxes.")}}}
	for _, stream := range []bool{false, true} {
		want, err := encodeOpenAIRequest(buildOpenAIRequest(hosts["openai"], req, stream), nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeOpenAIChat(hosts["openai"], req, stream)
		if err != nil || string(got) != string(want) {
			t.Fatalf("stream %v: %s, %v; want %s", stream, got, err, want)
		}
	}
	room := roomPool.Get().(*oaiRequestRoom)
	if !reflect.DeepEqual(*room, oaiRequestRoom{}) {
		t.Fatalf("a pooled room holds a request: %+v", room.r)
	}
	roomPool.Put(room)
}

// BenchmarkEncodeOpenAIChat compares a chat body built in a fresh room
// (as before the pool) with one built in a pooled room; a two-message
// chat's body in a pooled room is its one allocation (Go 1.26).
func BenchmarkEncodeOpenAIChat(b *testing.B) {
	req := requestShapes()[1]
	b.Run("fresh", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			encodeOpenAIRequest(buildOpenAIRequest(hosts["openai"], req, false), req.Extra)
		}
	})
	b.Run("pooled", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			encodeOpenAIChat(hosts["openai"], req, false)
		}
	})
	b.Run("pooled two messages", func(b *testing.B) {
		plain := plainMessages(2)
		b.ReportAllocs()
		for b.Loop() {
			encodeOpenAIChat(hosts["openai"], plain, false)
		}
	})
}
