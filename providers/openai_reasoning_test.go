package providers

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// twoChoiceReasoning is a DeepSeek answer of two choices, each with
// reasoning_content; only the second calls a tool.
const twoChoiceReasoning = `{"id":"r2","object":"chat.completion","created":1,"model":"deepseek-reasoner","choices":[
 {"index":0,"message":{"role":"assistant","content":"Hello.","reasoning_content":"Just greet."},"finish_reason":"stop"},
 {"index":1,"message":{"role":"assistant","content":"","reasoning_content":"Call it.","tool_calls":[
  {"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"g","arguments":"{}"}}]},"finish_reason":"tool_calls"}],
 "usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12}}`

// TestDecodeReasoningAnswerOnce: on a host that keeps reasoning, the one
// decode reads the same answer as a plain host's (every engine field of
// every choice) and puts each choice's reasoning_content on that choice's
// first tool call only; a plain host keeps none.
func TestDecodeReasoningAnswerOnce(t *testing.T) {
	read := func(name string) []byte {
		call, cancel := readerCall(bytes.NewReader([]byte(twoChoiceReasoning)))
		defer cancel(nil)
		resp, _, err := decodeOpenAIResponse(hosts[name], call)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, err := json.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	plain, ds := read("openai"), read("deepseek")
	if strings.Contains(string(plain), "reasoning_content") || !strings.Contains(string(plain), `"content":"Hello."`) ||
		!strings.Contains(string(plain), `"completion_tokens":7`) {
		t.Fatalf("openai host: %s", plain)
	}
	c1 := `"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}`
	want := strings.Replace(string(plain), c1, c1+`,"extra_content":{"deepseek":{"reasoning_content":"Call it."}}`, 1)
	if want == string(plain) {
		t.Fatalf("the plain answer has no first tool call c1: %s", plain)
	}
	if string(ds) != want {
		t.Fatalf("deepseek host:\n got %s\nwant %s", ds, want)
	}
}
