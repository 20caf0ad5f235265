package providers_test

import (
	"io"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
)

// TestStrictFakesRefuse proves the Gemini, Cohere, Mistral, Groq and
// DeepSeek fakes refuse what their real APIs refuse, at any depth of the body, so
// a test that passes through them means the request would pass upstream.
func TestStrictFakesRefuse(t *testing.T) {
	mistral := func() *fake.Server { return fake.NewOpenAIHost("mistral") }
	const user = `{"role":"user","content":"x"}`
	cases := []struct {
		name    string
		newFake func() *fake.Server
		path    string
		body    string
		status  int
		want    string
	}{
		{"gemini top-level seed", fake.NewGemini, "/models/gemini-3-flash-preview:generateContent",
			`{"contents":[{"role":"user","parts":[{"text":"x"}]}],"seed":7}`, 400, `Unknown name \"seed\"`},
		{"gemini nested field", fake.NewGemini, "/models/gemini-2.5-flash:generateContent",
			`{"contents":[{"role":"user","parts":[{"text":"x","extra_content":{}}]}]}`, 400, `contents[0].parts[0].extra_content`},
		{"gemini response count", fake.NewGemini, "/models/gemini-2.5-flash:generateContent",
			`{"contents":[{"role":"user","parts":[{"text":"x"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}},{"functionCall":{"name":"g","args":{}}}]},` +
				`{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`, 400, `number of function response parts`},
		{"gemini response name", fake.NewGemini, "/models/gemini-2.5-flash:generateContent",
			`{"contents":[{"role":"user","parts":[{"text":"x"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},` +
				`{"role":"user","parts":[{"functionResponse":{"name":"g","response":{}}}]}]}`, 400, `matches no function call`},
		{"gemini response id", fake.NewGemini, "/models/gemini-2.5-flash:generateContent",
			`{"contents":[{"role":"user","parts":[{"text":"x"}]},{"role":"model","parts":[{"functionCall":{"id":"a1","name":"f","args":{}}}]},` +
				`{"role":"user","parts":[{"functionResponse":{"id":"b2","name":"f","response":{}}}]}]}`, 400, `functionResponse.id \"b2\" does not match`},
		{"cohere tool call extra_content", fake.NewCohere, "/chat",
			`{"model":"command-a-03-2025","messages":[` + user + `,{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"},"extra_content":{}}]},{"role":"tool","tool_call_id":"c1","content":"r"}]}`,
			422, `messages[1].tool_calls[0].extra_content`},
		{"cohere tool strict", fake.NewCohere, "/chat",
			`{"model":"command-a-03-2025","messages":[` + user + `],"tools":[{"type":"function","function":{"name":"f","parameters":{},"strict":true}}]}`,
			422, `tools[0].function.strict`},
		{"mistral seed", mistral, "/chat/completions", `{"model":"mistral-small-latest","messages":[` + user + `],"seed":7}`, 422, `body.seed`},
		{"mistral nested field", mistral, "/chat/completions",
			`{"model":"mistral-small-latest","messages":[` + user + `,{"role":"assistant","tool_calls":[{"id":"abcDEF123","type":"function","function":{"name":"f","arguments":"{}"},"extra_content":{}}]},{"role":"tool","tool_call_id":"abcDEF123","content":"r"}]}`,
			422, `messages[1].tool_calls[0].extra_content`},
		{"mistral id shape", mistral, "/chat/completions",
			`{"model":"mistral-small-latest","messages":[` + user + `,{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_1","content":"r"}]}`,
			400, `must be a-z, A-Z, 0-9, with a length of 9`},
		{"groq nested field", func() *fake.Server { return fake.NewOpenAIHost("groq") }, "/chat/completions",
			`{"model":"llama-3.3-70b-versatile","messages":[{"role":"user","content":"x","metadata":{}}]}`, 400, `property 'metadata' is unsupported`},
		{"deepseek retired model", fake.NewDeepSeek, "/chat/completions", `{"model":"deepseek-chat","messages":[` + user + `]}`, 400, `Model Not Exist`},
		{"deepseek parallel_tool_calls", fake.NewDeepSeek, "/chat/completions",
			`{"model":"deepseek-v4-flash","messages":[` + user + `],"parallel_tool_calls":false}`, 422, `body.parallel_tool_calls`},
		{"deepseek reasoning not issued", fake.NewDeepSeek, "/chat/completions",
			`{"model":"deepseek-v4-flash","messages":[` + user + `,{"role":"assistant","reasoning_content":"made up","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"r"}]}`,
			400, `does not match the one the API returned`},
		{"deepseek json without json prompt", fake.NewDeepSeek, "/chat/completions",
			`{"model":"deepseek-v4-flash","messages":[` + user + `],"response_format":{"type":"json_object"}}`, 400, `must contain the word 'json'`},
		{"deepseek effort none", fake.NewDeepSeek, "/chat/completions",
			`{"model":"deepseek-v4-flash","messages":[` + user + `],"reasoning_effort":"none"}`, 400, `does not support 'none'`},
	}
	for _, c := range cases {
		f := c.newFake()
		resp, err := f.Client().Post(f.BaseURL()+c.path, "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(string(b), c.want) {
			t.Errorf("%s: %d %s, want %d with %q", c.name, resp.StatusCode, b, c.status, c.want)
		}
		f.Close()
	}
}
