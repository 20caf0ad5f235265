package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/agent"
)

// runBodyCase is a request body and whether the hand-written decoder must
// take it (the common shapes) or may hand it to encoding/json.
type runBodyCase struct {
	body string
	fast bool
}

// pipeRunBodies are /v1/pipes/run bodies in the shapes the langbase SDK
// 1.2.4 sends (pipes.run: name, messages, variables, threadId, stream,
// apiKey, llmKey, rawResponse, runTools, tools, memory, json) and the
// extras of docs/pipes-and-threads.md#runs, then the edge cases encoding/json decides.
var pipeRunBodies = []runBodyCase{
	{`{}`, true},
	{` {"name":"p","messages":[{"role":"user","content":"hi"}],"stream":false} `, true},
	{`{"name":"summary","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"line\nnext \"q\" \u00e9 \ud83d\ude00 \/"}],"variables":[{"name":"topic","value":"go"},{"name":"n","value":null}],"threadId":"thread_1","stream":true,"json":false,"llmKey":"sk-x","include_sources":true,"version":3,"apiKey":"lb-1","rawResponse":true,"runTools":false}`, true},
	{`{"name":"p","variables":{"b":"2","a":"1","c":""}}`, true},
	{`{"name":"p","variables":{}}`, true},
	{`{"name":"p","variables":[]}`, true},
	{`{"name":"p","variables":null,"messages":null,"tools":null,"memory":null,"stream":null,"json":null,"threadId":null,"version":null,"include_sources":null}`, true},
	{`{"messages":[{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image_url","image_url":{"url":"https://x/y.png","detail":"high"}},{"type":"image_url","image_url":null},{"type":"text"}]}]}`, true},
	{`{"messages":[{"role":"user","content":[]},{"role":"user","content":null},{"role":"user"},null,{}]}`, true},
	{`{"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"},"extra_content":{"google":{"thought_signature":"abc"}}},{"index":0,"id":"c2","function":null,"extra_content":null}]},{"role":"tool","tool_call_id":"call_1","name":"get_weather","content":"sunny"}]}`, true},
	{`{"tools":[{"type":"function","function":{"name":"get_weather","description":"Weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"strict":true}},{"type":"function","function":{"name":"f","parameters":null,"strict":null}},{"type":"function","function":null},null]}`, true},
	{`{"memory":[{"name":"docs"},{"name":"kb","min_score":0.25,"rerank":{"model":"cohere:rerank-v3.5","top_n":5}},{"name":"x","min_score":null,"rerank":null},{"name":"y","min_score":1e-2,"rerank":{"model":"off"}}]}`, true},
	{`{"name":"p","unknown":{"deep":[1,2,{"a":"b"}]},"extra":[true,false,null,-1.5e3],"n":"x"}`, true},
	{"{\"name\":\"p\",\n\t\"messages\" : [ { \"role\" : \"user\" , \"content\" : \"hi\" } ] \r\n}", true},
	// Handed to encoding/json (same value or same error either way).
	{`{"Name":"p"}`, false},
	{`{"NAME":"p","name":"q"}`, false},
	{`{"name":"p","name":"q"}`, false},
	{`{"threadid":"t"}`, false},
	{`{"na\u006de":"p"}`, false},
	{`{"\u212aey":"p"}`, false},
	{`{"name":"bad \xff utf8"}`, false},
	{`{"name":"lone \ud800 surrogate"}`, false},
	{`{"version":1.0}`, false},
	{`{"version":1e2}`, false},
	{`{"version":99999999999999999999}`, false},
	{`{"version":"3"}`, false},
	{`{"stream":"true"}`, false},
	{`{"messages":{"role":"user"}}`, false},
	{`{"messages":[{"role":"user","content":5}]}`, false},
	{`{"messages":[{"role":"user","content":{"text":"x"}}]}`, false},
	{`{"messages":[{"role":"assistant","tool_calls":[{"index":1.5}]}]}`, false},
	{`{"variables":{"a":1}}`, false},
	{`{"variables":{"a":null}}`, false},
	{`{"variables":{"a":"1","a":"2"}}`, false},
	{`{"variables":[{"value":"x"}]}`, false},
	{`{"variables":[{"name":null,"value":"x"}]}`, false},
	{`{"variables":[{"name":"a","value":5}]}`, false},
	{`{"variables":[null]}`, false},
	{`{"variables":"a=1"}`, false},
	{`{"variables":[{"Name":"a","value":"b"}]}`, false},
	{`{"memory":[{"name":"m","min_score":1e400}]}`, false},
	{`{"name":"p"} x`, false},
	{`{"name":"p"`, false},
	{`[{"name":"p"}]`, false},
	{`null`, false},
	{`"x"`, false},
}

// agentRunBodies are /v1/agent/run bodies in the SDK's agent.run shape
// (https://langbase.com/docs/api-reference/agent/run).
var agentRunBodies = []runBodyCase{
	{`{"model":"openai:gpt-4o-mini","input":"hi","stream":false,"apiKey":"sk-1"}`, true},
	{`{"model":"openai:gpt-4o-mini","input":[{"role":"user","content":"hi"},{"role":"assistant","content":null}],"instructions":"be brief","stream":true,"tools":[{"type":"function","function":{"name":"f","parameters":{}}},null],"tool_choice":{"type":"function","function":{"name":"f"}},"parallel_tool_calls":false,"reasoning_effort":"low","temperature":0.2,"top_p":1,"max_tokens":100,"max_completion_tokens":200,"presence_penalty":-0.5,"frequency_penalty":0,"stop":["\n","END"],"response_format":{"type":"json_object"},"customModelParams":{"seed":42,"logit_bias":{"50256":-100},"seed":7},"fallback_models":["anthropic:claude-3-5-haiku-latest",null],"apiKey":""}`, true},
	{`{"model":"openai:gpt-4o","input":"x","instructions":null,"tools":[],"tool_choice":null,"stop":null,"response_format":null,"customModelParams":null,"mcp_servers":null,"fallback_models":null,"temperature":null}`, true},
	{`{"model":"openai:gpt-4o","input":"x","customModelParams":{},"mcp_servers":[{"name":"deepwiki","type":"url","url":"https://mcp.deepwiki.com/sse","authorization_token":"t","tool_configuration":{"allowed_tools":["ask"],"enabled":true},"custom_headers":{"X-A":"1","X-B":null}},{"name":"n","tool_configuration":null,"custom_headers":{}},{"name":"m","tool_configuration":{"allowed_tools":[],"enabled":null}}]}`, true},
	{`{"model":"m","input":"x","tool_choice":"auto","stop":"END","response_format":{"type":"json_schema","json_schema":{"name":"s","schema":{"type":"object"},"strict":true}}}`, true},
	{`{"model":"m","Input":"x"}`, false},
	{`{"model":"m","temperature":"hot"}`, false},
	{`{"model":"m","max_tokens":1e999}`, false},
	{`{"model":"m","customModelParams":{"a":1,"b\xff":2}}`, false},
	{`{"model":"m","mcp_servers":[{"name":"x","custom_headers":{"a":1}}]}`, false},
	{`{"model":"m","fallback_models":[1]}`, false},
	{`{"model":"m","stream":1}`, false},
}

// chatBodies are /openai/v1/chat/completions bodies as the openai clients
// send them (https://platform.openai.com/docs/api-reference/chat/create).
var chatBodies = []runBodyCase{
	{`{"model":"openai:gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`, true},
	{`{"model":"pipe:summary","messages":[{"role":"developer","content":"x"},{"role":"user","content":[{"type":"text","text":"y"}]}],"stream":true,"stream_options":{"include_usage":true},"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"required","parallel_tool_calls":true,"response_format":{"type":"text"},"n":1,"temperature":0.7,"top_p":0.9,"max_tokens":64,"max_completion_tokens":64,"stop":null,"seed":1234,"presence_penalty":0,"frequency_penalty":0.1,"user":"u-1","reasoning_effort":"medium","logprobs":false,"metadata":{"a":"b"}}`, true},
	{`{"model":"m","messages":[],"stream_options":null,"tools":null}`, true},
	{`{"model":"m","messages":[],"stream_options":{}}`, true},
	{`{"model":"m","stream_options":{"include_usage":"yes"}}`, false},
	{`{"model":"m","stream_options":{"Include_Usage":true}}`, false},
	{`{"model":"m","n":"1"}`, false},
	{`{"model":"m","user":5}`, false},
}

// checkRunBody decodes body both ways into new values of v's type: the
// hand-written path must give encoding/json's value whenever it takes the
// body, and take it when want is set.
func checkRunBody(t *testing.T, v any, body []byte, want bool) {
	t.Helper()
	typ := reflect.TypeOf(v).Elem()
	got := reflect.New(typ).Interface()
	ref := reflect.New(typ).Interface()
	fast := decodeFast(body, got)
	if want && !fast {
		t.Errorf("%T %s: not taken by the hand-written decoder", v, body)
	}
	if !fast {
		if !reflect.ValueOf(got).Elem().IsZero() {
			t.Errorf("%T %s: value not reset after the hand-written decoder gave up", v, body)
		}
		return
	}
	if err := json.Unmarshal(body, ref); err != nil {
		t.Fatalf("%T %s: hand-written decoder took a body encoding/json refuses: %v", v, body, err)
	}
	if rb, ok := got.(*pipeRun); ok {
		// The room is where Messages may point, not a value of its own:
		// Messages is compared on a copy of its own.
		rb.run.Messages = slices.Clone(rb.run.Messages)
		rb.msgRoom = [len(rb.msgRoom)]engine.Message{}
	}
	if !reflect.DeepEqual(got, ref) {
		t.Fatalf("%T %s:\n got %s\nwant %s", v, body, dump(got), dump(ref))
	}
}

func dump(v any) string { return fmt.Sprintf("%#v", v) }

func TestDecodeRunBodiesMatchEncodingJSON(t *testing.T) {
	for _, set := range []struct {
		v     any
		cases []runBodyCase
	}{{&pipeRun{}, pipeRunBodies}, {&agent.AgentRunRequest{}, agentRunBodies}, {&agent.CompletionRequest{}, chatBodies}} {
		for _, c := range set.cases {
			checkRunBody(t, set.v, []byte(c.body), c.fast)
		}
	}
}

// TestDecodeBytesErrorsUnchanged checks that a body the hand-written path
// gives up on still gets encoding/json's 400 naming the field and rule.
func TestDecodeBytesErrorsUnchanged(t *testing.T) {
	for _, c := range []struct {
		v     any
		body  string
		field string
	}{
		{&pipeRun{}, `{"version":"3"}`, "version"},
		{&pipeRun{}, `{"stream":"true"}`, "stream"},
		{&pipeRun{}, `{"variables":{"a":1}}`, "variables.a"},
		{&pipeRun{}, `{"variables":[{"value":"x"}]}`, "variables[0].name"},
		{&agent.AgentRunRequest{}, `{"model":"m","temperature":"hot"}`, "temperature"},
		{&agent.CompletionRequest{}, `{"model":"m","user":5}`, "user"},
	} {
		err := decodeBytes([]byte(c.body), c.v)
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Code != engine.CodeBadRequest || ee.Field != c.field {
			t.Errorf("%s: %#v, want a BAD_REQUEST naming %s", c.body, err, c.field)
		}
	}
}

// TestDecodeRunBodyMessagesRoom: a body's single message is decoded into
// the body's own room, more go to an array of their own, with every
// message as encoding/json decodes it (checkRunBody).
func TestDecodeRunBodyMessagesRoom(t *testing.T) {
	var one, three pipeRun
	if !decodeFast([]byte(`{"messages":[{"role":"user","content":"a"}]}`), &one) || len(one.run.Messages) != 1 ||
		&one.run.Messages[0] != &one.msgRoom[0] || one.run.Messages[0].Content.Text != "a" {
		t.Fatalf("one message %+v, in the room %v", one.run.Messages, len(one.run.Messages) > 0 && &one.run.Messages[0] == &one.msgRoom[0])
	}
	body := []byte(`{"messages":[{"role":"system","content":"a"},{"role":"user","content":"b"},{"role":"assistant","content":"c"}]}`)
	if !decodeFast(body, &three) || len(three.run.Messages) != 3 || &three.run.Messages[0] == &three.msgRoom[0] ||
		three.run.Messages[0].Content.Text != "a" || three.run.Messages[2].Role != "assistant" {
		t.Fatalf("three messages %+v", three.run.Messages)
	}
	checkRunBody(t, &pipeRun{}, body, true)
	var empty pipeRun
	if !decodeFast([]byte(`{"messages":[]}`), &empty) || empty.run.Messages == nil || len(empty.run.Messages) != 0 {
		t.Fatalf("empty messages %#v", empty.run.Messages)
	}
}

// FuzzDecodeRunBodies compares the hand-written decoder with encoding/json
// on arbitrary bodies for the three run request types.
func FuzzDecodeRunBodies(f *testing.F) {
	for _, set := range [][]runBodyCase{pipeRunBodies, agentRunBodies, chatBodies} {
		for _, c := range set {
			f.Add([]byte(c.body))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, v := range []any{&pipeRun{}, &agent.AgentRunRequest{}, &agent.CompletionRequest{}} {
			checkRunBody(t, v, b, false)
		}
	})
}

// BenchmarkDecodeRunBodyAllocs: decoding the run bodies of
// BenchmarkRunAllocs costs the new value and its strings and slices: 2, 5
// and 3 allocations on Go 1.26 (about ten more each through
// encoding/json).
func BenchmarkDecodeRunBodyAllocs(b *testing.B) {
	for _, c := range []struct {
		name string
		v    any
		body string
	}{
		{"pipe", &pipeRun{}, `{"messages":[{"role":"user","content":"Say something about foxes."}]}`},
		{"agent", &agent.AgentRunRequest{}, `{"model":"openai:gpt-4o-mini","instructions":"You are terse.","input":"Say something about foxes."}`},
		{"completion", &agent.CompletionRequest{}, `{"model":"openai:gpt-4o-mini","messages":[{"role":"user","content":"Say something about foxes."}]}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			typ := reflect.TypeOf(c.v).Elem()
			body := []byte(c.body)
			b.ReportAllocs()
			for b.Loop() {
				if err := decodeBytes(body, reflect.New(typ).Interface()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
