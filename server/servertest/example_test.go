package servertest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestMain lets test servers start this binary as their document parser.
func TestMain(m *testing.M) { servertest.Main(m) }

// call sends a JSON request with the admin key and returns the decoded
// answer and the model that answered (lb-model).
func call(s *servertest.Server, path string, body any, headers ...string) (map[string]any, string) {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", s.URL+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+servertest.AdminKey)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	json.Unmarshal(raw, &out)
	return out, resp.Header.Get("lb-model")
}

// A whole Hearth in-process, with the offline hearth:echo model: no key,
// no network.
func ExampleOpen() {
	s, err := servertest.Open()
	if err != nil {
		panic(err)
	}
	defer s.Close()
	call(s, "/v1/pipes", map[string]any{"name": "greeter", "model": "hearth:echo"})
	out, _ := call(s, "/v1/pipes/run", map[string]any{"name": "greeter",
		"messages": []map[string]string{{"role": "user", "content": "hello from a test"}}})
	fmt.Println(out["completion"])
	// Output: hello from a test
}

// Fault injection: the LB-Fault header makes the OpenAI upstream fail
// with a 503 on this request only, and the pipe falls back to its next
// model, as it would in production.
func ExampleWithFaults() {
	up := fake.NewOpenAI()
	defer up.Close()
	s, err := servertest.Open(servertest.WithProvider("openai", up.BaseURL(), "sk-test"), servertest.WithFaults())
	if err != nil {
		panic(err)
	}
	defer s.Close()
	call(s, "/v1/pipes", map[string]any{"name": "sturdy", "model": "openai:gpt-4o-mini", "fallback_models": []string{"hearth:echo"}})
	run := map[string]any{"name": "sturdy", "messages": []map[string]string{{"role": "user", "content": "still there?"}}}
	_, model := call(s, "/v1/pipes/run", run)
	fmt.Println(model)
	_, model = call(s, "/v1/pipes/run", run, "LB-Fault", "openai:503")
	fmt.Println(model)
	// Output:
	// openai:gpt-4o-mini
	// hearth:echo
}

// Record a session against an upstream once, then replay it with the
// upstream gone.
func ExampleWithReplay() {
	dir, _ := os.MkdirTemp("", "recordings-*")
	defer os.RemoveAll(dir)
	up := fake.NewOpenAI()
	up.SetDefault(fake.Reply{Text: "Recorded once, replayed forever."})
	run := map[string]any{"name": "p", "messages": []map[string]string{{"role": "user", "content": "hi"}}}
	for _, opt := range []servertest.Option{servertest.WithRecord(dir), servertest.WithReplay(dir, "error")} {
		s, err := servertest.Open(servertest.WithProvider("openai", up.BaseURL(), "sk-test"), opt)
		if err != nil {
			panic(err)
		}
		call(s, "/v1/pipes", map[string]any{"name": "p", "model": "openai:gpt-4o-mini"})
		out, _ := call(s, "/v1/pipes/run", run)
		fmt.Println(out["completion"])
		s.Close()
		up.Close() // the replay runs without it
	}
	// Output:
	// Recorded once, replayed forever.
	// Recorded once, replayed forever.
}
