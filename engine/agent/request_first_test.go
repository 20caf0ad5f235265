package agent

import (
	"encoding/json"
	"reflect"
	"testing"
	"unsafe"

	"github.com/hearth-dev/hearth/engine"
)

// jsonStringCases are JSON strings (and a few non-strings) that
// jsonString must read as encoding/json does.
var jsonStringCases = []string{
	`""`, `"plain"`, `"Say something about foxes."`, `"caf\u00e9"`, `"café"`, `"tab\there"`, "\"raw\ttab\"",
	`"quote \" inside"`, `"\ud83d\ude00"`, `"\ud800"`, "\"bad \xff utf8\"", `"a\\"`, `"unterminated`, `"`, `42`,
	`"new\nline"`, "\"raw\nnewline\"", `"slash \/"`,
}

// TestJSONStringMatchesEncodingJSON compares jsonString with
// json.Unmarshal into a string.
func TestJSONStringMatchesEncodingJSON(t *testing.T) {
	for _, c := range jsonStringCases {
		checkJSONString(t, []byte(c))
	}
}

// FuzzJSONString compares jsonString with json.Unmarshal on any input.
func FuzzJSONString(f *testing.F) {
	for _, c := range jsonStringCases {
		f.Add([]byte(c))
	}
	f.Fuzz(checkJSONString)
}

func checkJSONString(t *testing.T, raw []byte) {
	var want string
	werr := json.Unmarshal(raw, &want)
	got, ok := jsonString(raw)
	if ok != (werr == nil) || got != want {
		t.Fatalf("jsonString(%q) = %q, %v; encoding/json %q, %v", raw, got, ok, want, werr)
	}
	if got, ok = jsonStringShared(raw); ok != (werr == nil) || got != want {
		t.Fatalf("jsonStringShared(%q) = %q, %v; encoding/json %q, %v", raw, got, ok, want, werr)
	}
}

// TestValidateBuildsChatRequest: validating an agent request builds its
// chat request (sampling defaults, instructions as a system message, a
// string or an array input), and a string input's text shares the
// request's bytes.
func TestValidateBuildsChatRequest(t *testing.T) {
	instr := "You are terse."
	req := &AgentRunRequest{Model: "openai:gpt-4o-mini", Instructions: &instr, Input: json.RawMessage(`"Say something about foxes."`)}
	run, err := req.validate()
	if err != nil {
		t.Fatal(err)
	}
	temp, topP, zero, maxTok := AgentDefaultTemperature, AgentDefaultTopP, 0.0, AgentDefaultMaxTokens
	want := &engine.ChatRequest{Model: "gpt-4o-mini", Messages: []engine.Message{
		{Role: "system", Content: engine.TextContent(instr)}, {Role: "user", Content: engine.TextContent("Say something about foxes.")}},
		Temperature: &temp, TopP: &topP, PresencePenalty: &zero, FrequencyPenalty: &zero, MaxTokens: &maxTok}
	if !reflect.DeepEqual(run.chat, want) {
		t.Fatalf("chat %+v\nwant %+v", run.chat, want)
	}
	seven := 0.2
	req.Temperature, req.Instructions = &seven, nil
	if run, err = req.validate(); err != nil || *run.chat.Temperature != 0.2 || len(run.chat.Messages) != 1 || run.chat.Messages[0].Role != "user" {
		t.Fatalf("without instructions: %+v, %v", run.chat, err)
	}
	req.Input = json.RawMessage(`[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]`)
	req.Instructions = &instr
	if run, err = req.validate(); err != nil || len(run.chat.Messages) != 3 || run.chat.Messages[0].Role != "system" || run.chat.Messages[2].Content.Text != "b" {
		t.Fatalf("array input: %+v, %v", run.chat, err)
	}
	req.Input, req.Temperature = json.RawMessage(`"Say something about foxes."`), nil
	// The string input's text shares the request's bytes (Input is never
	// modified once the request is handed to Run).
	if run, err = req.validate(); err != nil || unsafe.StringData(run.chat.Messages[1].Content.Text) != &req.Input[1] {
		t.Fatalf("the input's text is a copy: %+v, %v", run.chat.Messages, err)
	}
}

// BenchmarkValidateAllocs: validating the common agent request (a model,
// instructions and a string input) is one allocation on Go 1.26, the run
// (with its request, sampling values and messages).
func BenchmarkValidateAllocs(b *testing.B) {
	instr := "You are terse."
	req := &AgentRunRequest{Model: "openai:gpt-4o-mini", Instructions: &instr, Input: json.RawMessage(`"Say something about foxes."`)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := req.validate(); err != nil {
			b.Fatal(err)
		}
	}
}
