package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/providers/fake"
)

// TestAnthropicClientEndToEnd builds the real hearth binary and runs the
// official @anthropic-ai/sdk npm client (pinned in
// testdata/anthropic-client/package-lock.json) against /anthropic with
// `node --test`, the SDK's calls once per provider family
// (families.test.mjs): Anthropic, OpenAI, Gemini and ollama, each a fake
// upstream.
//
// It needs node and testdata/anthropic-client/node_modules (`make
// sdk-deps`). Without them it skips, except under CI (env CI set), where
// it fails; it also fails when node ran no test, skipped one, or ran
// fewer than the test files declare (runNodeTests).
func TestAnthropicClientEndToEnd(t *testing.T) {
	root, dir, node := nodeSuite(t, "anthropic client", "anthropic-client", "@anthropic-ai/sdk")
	bin := buildHearth(t, root)
	up := fake.NewAnthropic()
	defer up.Close()
	upstream := httptest.NewServer(anthropicClientUpstream(up))
	defer upstream.Close()
	openai := fake.NewOpenAI()
	defer openai.Close()
	oaiUp := httptest.NewServer(familyUpstream(openai, `"role":"tool"`))
	defer oaiUp.Close()
	gemini := fake.NewGemini()
	defer gemini.Close()
	geminiUp := httptest.NewServer(familyUpstream(gemini, `"functionResponse"`))
	defer geminiUp.Close()
	ollama := fake.NewOpenAIHost("ollama")
	defer ollama.Close()
	ollamaUp := httptest.NewServer(familyUpstream(ollama, `"role":"tool"`))
	defer ollamaUp.Close()

	addr := freeAddr(t)
	const adminKey = "hth_user_anthropic_e2e_admin_k01"
	serverURL := "http://" + addr
	var logs lockedBuffer
	stop := startHearth(t, bin, addr, append(hearthEnv(t, serverURL, adminKey, oaiUp.URL+"/v1"),
		"HEARTH_ANTHROPIC_BASE_URL="+upstream.URL+"/v1", "HEARTH_ANTHROPIC_API_KEY=sk-ant-server",
		"HEARTH_GOOGLE_BASE_URL="+geminiUp.URL+"/v1beta", "HEARTH_GOOGLE_API_KEY=AIza-server",
		"HEARTH_OLLAMA_BASE_URL="+ollamaUp.URL+"/v1",
		"HEARTH_ANTHROPIC_MODEL_ALIASES=claude-haiku-4-5=hearth:echo,claude-echo=hearth:echo"), &logs)
	defer stop()

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	env := append(cleanEnv(), "HEARTH_URL="+serverURL, "HEARTH_KEY="+adminKey, "NO_COLOR=1")
	runNodeTests(t, ctx, node, dir, env, logs.String)
}

// anthropicClientUpstream scripts the fake Anthropic upstream: the model
// claude-busy answers 529 and claude-limited 429; a request offering
// tools calls get_weather for Paris until a tool result comes back, then
// answers with the weather.
func anthropicClientUpstream(up *fake.Server) http.Handler {
	return scriptedUpstream(up, func(r *http.Request, body []byte) {
		s := string(body)
		switch {
		case strings.HasSuffix(r.URL.Path, "/count_tokens"):
		case strings.Contains(s, "rate-limit-me"):
			up.Enqueue(fake.Reply{Status: 429, Message: "Number of requests has exceeded your rate limit", RetryAfter: "1"})
		case strings.Contains(s, `"model":"claude-busy"`):
			up.Enqueue(fake.Reply{Status: 529, Message: "Overloaded"})
		case strings.Contains(s, `"model":"claude-limited"`):
			up.Enqueue(fake.Reply{Status: 429, Message: "Number of requests has exceeded your rate limit", RetryAfter: "1"})
		case strings.Contains(s, `"tool_result"`):
			up.Enqueue(fake.Reply{Text: "Sunny in Paris."})
		case strings.Contains(s, `"get_weather"`):
			up.Enqueue(fake.Reply{ToolCalls: []fake.ToolCall{{ID: "toolu_paris", Name: "get_weather", Arguments: `{"city":"Paris"}`}}})
		}
	})
}

// familyUpstream scripts a fake upstream of another family as
// anthropicClientUpstream scripts Anthropic's: 429 to rate-limit-me, the
// weather once a tool result (resultMarker in the body) came back, a
// get_weather call for Paris when the tool is offered.
func familyUpstream(up *fake.Server, resultMarker string) http.Handler {
	return scriptedUpstream(up, func(_ *http.Request, body []byte) {
		s := string(body)
		switch {
		case strings.Contains(s, "rate-limit-me"):
			up.Enqueue(fake.Reply{Status: 429, Message: "Rate limit reached", RetryAfter: "1"})
		case strings.Contains(s, resultMarker):
			up.Enqueue(fake.Reply{Text: "Sunny in Paris."})
		case strings.Contains(s, `"get_weather"`):
			up.Enqueue(fake.Reply{ToolCalls: []fake.ToolCall{{ID: "call_paris", Name: "get_weather", Arguments: `{"city":"Paris"}`}}})
		}
	})
}
