package engine

import (
	"reflect"
	"testing"
)

// TestBuildChatRequest: a pipe run's provider request carries the pipe's
// parameters (values, not pointers into the pipe), and built in a prepared
// run's box it is the same request.
func TestBuildChatRequest(t *testing.T) {
	p := newPipeDefaults()
	p.PresencePenalty, p.FrequencyPenalty = 0.5, -0.5
	msgs := []Message{{Role: "user", Content: TextContent("hi")}}
	ref := ModelRef{Provider: "openai", Model: "gpt-4o-mini"}
	req, err := buildChatRequestIn(nil, p, ref, msgs, nil, false, "sk")
	if err != nil {
		t.Fatal(err)
	}
	if *req.Temperature != 0.7 || *req.TopP != 1 || *req.MaxTokens != 1000 || *req.PresencePenalty != 0.5 ||
		*req.FrequencyPenalty != -0.5 || req.Model != "gpt-4o-mini" || req.APIKey != "sk" || len(req.Messages) != 1 {
		t.Fatalf("request %+v", req)
	}
	*req.Temperature = 2
	if p.Temperature != 0.7 {
		t.Fatal("the request shares the pipe's temperature")
	}
	p.Tools = []Tool{{Type: "function", Function: ToolFunction{Name: "f"}}}
	p.ParallelToolCalls, p.ToolChoice = true, ToolChoice{}
	req, err = buildChatRequestIn(nil, p, ref, msgs, nil, true, "")
	if err != nil {
		t.Fatal(err)
	}
	if req.ToolChoice == nil || req.ToolChoice.Mode != "auto" || !*req.ParallelToolCalls || req.ResponseFormat.Type != "json_object" {
		t.Fatalf("request with tools %+v", req)
	}
	if p.ToolChoice.Mode != "" {
		t.Fatal("the request's tool choice is the pipe's")
	}
	p.Tools = nil
	// In a prepared run's box (PreparedRun.chatReq): the same request.
	var box pipeChatRequest
	in, err := buildChatRequestIn(&box, p, ref, msgs, nil, false, "sk")
	want, _ := buildChatRequestIn(nil, p, ref, msgs, nil, false, "sk")
	if err != nil || in != &box.req || !reflect.DeepEqual(in, want) {
		t.Fatalf("in the box: %+v, %v; want %+v", in, err, want)
	}
}

// BenchmarkBuildChatRequestAllocs: a pipe run's provider request, with the
// values its pointers point to, is one allocation, none in a prepared
// run's box (Go 1.26).
func BenchmarkBuildChatRequestAllocs(b *testing.B) {
	p := newPipeDefaults()
	msgs := []Message{{Role: "user", Content: TextContent("hi")}}
	ref := ModelRef{Provider: "openai", Model: "gpt-4o-mini"}
	b.Run("fresh", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := buildChatRequestIn(nil, p, ref, msgs, nil, false, "sk"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("in box", func(b *testing.B) {
		var box pipeChatRequest
		b.ReportAllocs()
		for b.Loop() {
			if _, err := buildChatRequestIn(&box, p, ref, msgs, nil, false, "sk"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestAssembleMessages: a run's messages are the prompt, the few-shot
// messages, the history and the request with variables substituted; the
// request's messages never change, and in a room big enough the list is
// the room's.
func TestAssembleMessages(t *testing.T) {
	p := newPipeDefaults()
	p.SetPrompt("", "You are {{tone}}.")
	p.Messages = append(p.Messages, Message{Role: "user", Content: TextContent("shot")})
	request := []Message{{Role: "user", Content: TextContent("Say {{what}}.")}}
	history := []Message{{Role: "assistant", Content: TextContent("before")}}
	vars := MergeVariables([]Variable{{Name: "tone", Value: "terse"}}, []Variable{{Name: " what ", Value: "hello"}})
	got := AssembleMessagesIn(nil, p, false, RAGContext{}, history, request, vars)
	want := []Message{{Role: "system", Content: TextContent("You are terse.")}, {Role: "user", Content: TextContent("shot")},
		history[0], {Role: "user", Content: TextContent("Say hello.")}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if request[0].Content.Text != "Say {{what}}." {
		t.Fatal("the request's message was changed")
	}
	if MergeVariables(nil, nil) != nil {
		t.Fatal("no variables should merge to nil")
	}
	p.SetPrompt("", "You are terse.")
	// In a prepared run's room (PreparedRun.msgs): the same list, in the
	// room, and capped so an append copies it.
	var room [5]Message
	in := AssembleMessagesIn(room[:0], p, false, RAGContext{}, history, request, nil)
	if !reflect.DeepEqual(in, AssembleMessagesIn(nil, p, false, RAGContext{}, history, request, nil)) || &in[0] != &room[0] || cap(in) != len(in) {
		t.Fatalf("in the room: %+v (cap %d)", in, cap(in))
	}
	if long := AssembleMessagesIn(room[:0], p, false, RAGContext{}, append(history, history...), append(request, request...), nil); len(long) != 6 || &long[0] == &room[0] {
		t.Fatalf("a list too long for the room: %d messages, in the room %v", len(long), &long[0] == &room[0])
	}
}

// TestModelID: a prepared run names its model as the one it parsed, and
// follows Ref when a fallback answered.
func TestModelID(t *testing.T) {
	for _, id := range []string{"openai:gpt-4o-mini", "OpenAI:gpt-4o", "groq:llama:3"} {
		ref, err := ParseModelID("model", id)
		if err != nil {
			t.Fatal(err)
		}
		pr := &PreparedRun{Ref: ref, parsedRef: ref, modelID: ModelIDOf(ref, id)}
		if pr.ModelID() != ref.String() {
			t.Fatalf("%s: ModelID %q, want %q", id, pr.ModelID(), ref.String())
		}
		pr.Ref = ModelRef{Provider: "anthropic", Model: "claude"}
		if pr.ModelID() != "anthropic:claude" {
			t.Fatalf("%s: after a fallback ModelID %q", id, pr.ModelID())
		}
	}
}

// chatOnlyProviders serves one chat model; the rest of Providers is nil.
type chatOnlyProviders struct {
	Providers
	model ChatModel
}

func (p chatOnlyProviders) ChatModel(ModelRef) (ChatModel, error) { return p.model, nil }

// nopChat is a ChatModel that is never called.
type nopChat struct{ ChatModel }

// TestChatModelKeptInRun: with an instrumented registry, a run's model is
// wrapped in the run's own storage and still reports to the metrics;
// without one it is the registry's model.
func TestChatModelKeptInRun(t *testing.T) {
	model := &nopChat{}
	ref := ModelRef{Provider: "openai", Model: "gpt-4o-mini"}
	pr := &PreparedRun{r: &Runner{providers: InstrumentProviders(chatOnlyProviders{model: model}, NopMetrics{})}, Ref: ref}
	cm, err := pr.chatModel()
	if err != nil || cm != ChatModel(&pr.ichat) || pr.ichat.next != ChatModel(model) || pr.ichat.ref != ref {
		t.Fatalf("chatModel = %v, %v; wrapper %+v", cm, err, pr.ichat)
	}
	pr.r.providers = chatOnlyProviders{model: model}
	if cm, err := pr.chatModel(); err != nil || cm != ChatModel(model) {
		t.Fatalf("uninstrumented chatModel = %v, %v", cm, err)
	}
}

// BenchmarkAssembleMessagesAllocs: assembling a run's messages without
// variables is one allocation (the list), none in a prepared run's room
// big enough (Go 1.26); with variables one more per substituted message.
func BenchmarkAssembleMessagesAllocs(b *testing.B) {
	p := newPipeDefaults()
	p.SetPrompt("", "You are terse.")
	p.Messages = append(p.Messages, Message{Role: "user", Content: TextContent("shot")})
	request := []Message{{Role: "user", Content: TextContent("Say hello.")}}
	history := []Message{{Role: "assistant", Content: TextContent("before")}}
	b.Run("list", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			AssembleMessagesIn(nil, p, false, RAGContext{}, history, request, nil)
		}
	})
	b.Run("in room", func(b *testing.B) {
		var room [5]Message
		b.ReportAllocs()
		for b.Loop() {
			AssembleMessagesIn(room[:0], p, false, RAGContext{}, history, request, nil)
		}
	})
}

// BenchmarkPreparedRunModelAllocs: a prepared run names its model without
// building the string again, and wraps its model in its own storage: no
// allocation either way (Go 1.26).
func BenchmarkPreparedRunModelAllocs(b *testing.B) {
	ref := ModelRef{Provider: "openai", Model: "gpt-4o-mini"}
	pr := &PreparedRun{r: &Runner{providers: InstrumentProviders(chatOnlyProviders{model: &nopChat{}}, NopMetrics{})},
		Ref: ref, parsedRef: ref, modelID: ModelIDOf(ref, "openai:gpt-4o-mini")}
	b.Run("ModelID", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = pr.ModelID()
		}
	})
	b.Run("chatModel", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := pr.chatModel(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
