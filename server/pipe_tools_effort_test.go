package server_test

import (
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestPipeToolsEffortRule: models that take function tools only with
// reasoning_effort "none" get it in pipe runs too, and when they answer
// as a fallback of another model; the strict fake refuses anything else.
func TestPipeToolsEffortRule(t *testing.T) {
	up := fake.NewOpenAI()
	t.Cleanup(up.Close)
	ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), "sk-test"))
	key := servertest.AdminKey
	tools := []any{map[string]any{"type": "function", "function": map[string]any{"name": "get_weather",
		"parameters": map[string]any{"type": "object", "properties": map[string]any{}}}}}
	mustStatus(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "gpt6", "model": "openai:gpt-6-sol", "tools": tools}), 200)
	mustStatus(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "falls", "model": "openai:gpt-4o-mini", "tools": tools,
		"fallback_models": []string{"openai:gpt-5.6-terra"}}), 200)

	r := ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "gpt6", "messages": userMsg("weather?")})
	mustStatus(t, r, 200)
	body := up.LastRequest().JSON()
	if body["reasoning_effort"] != "none" || body["temperature"] != nil || body["stop"] != nil {
		t.Fatalf("gpt-6 pipe run sent %v", body)
	}

	// The primary is down (every attempt 503): the fallback gets "none".
	up.Enqueue(fake.Reply{Status: 503}, fake.Reply{Status: 503}, fake.Reply{Status: 503})
	r = ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "falls", "messages": userMsg("weather?")})
	mustStatus(t, r, 200)
	body = up.LastRequest().JSON()
	if body["model"] != "gpt-5.6-terra" || body["reasoning_effort"] != "none" {
		t.Fatalf("fallback sent model %v reasoning_effort %v", body["model"], body["reasoning_effort"])
	}
}
