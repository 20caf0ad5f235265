package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/providers/fake"
)

// TestOpenAIClientEndToEnd builds the real hearth binary and runs the
// official openai npm client and the OpenAI Agents SDK (pinned in
// testdata/openai-client/package-lock.json) against /openai/v1 with
// `node --test`.
//
// It needs node and testdata/openai-client/node_modules (`make sdk-deps`).
// Without them it skips, except under CI (env CI set), where it fails. It
// also fails when node ran no test, skipped one, or ran fewer than the
// test files declare (runNodeTests).
func TestOpenAIClientEndToEnd(t *testing.T) {
	root, dir, node := nodeSuite(t, "openai client", "openai-client", "openai")
	bin := buildHearth(t, root)
	up := fake.NewOpenAI()
	defer up.Close()
	imgs := fake.NewOpenAIImages()
	defer imgs.Close()
	upstream := httptest.NewServer(openAIClientUpstream(up, imgs))
	defer upstream.Close()

	addr := freeAddr(t)
	const adminKey = "hth_user_openai_e2e_admin_key_01"
	serverURL := "http://" + addr
	var logs lockedBuffer
	// The other provider families of responses_providers.test.mjs, each
	// a fake of its own wire format.
	ant, gem, oll := fake.NewAnthropic(), fake.NewGemini(), fake.NewOpenAIHost("ollama")
	defer ant.Close()
	defer gem.Close()
	defer oll.Close()
	antUp, gemUp, ollUp := markerUpstream(t, ant), markerUpstream(t, gem), markerUpstream(t, oll)
	stop := startHearth(t, bin, addr, append(hearthEnv(t, serverURL, adminKey, upstream.URL+"/v1"),
		"HEARTH_APPLY_DIR="+filepath.Join(dir, "apply"),
		"HEARTH_ANTHROPIC_BASE_URL="+antUp.URL+ant.BaseURL()[len(ant.URL):], "HEARTH_ANTHROPIC_API_KEY=sk-ant-server",
		"HEARTH_GOOGLE_BASE_URL="+gemUp.URL+gem.BaseURL()[len(gem.URL):], "HEARTH_GOOGLE_API_KEY=gem-server",
		"HEARTH_OLLAMA_BASE_URL="+ollUp.URL+oll.BaseURL()[len(oll.URL):]), &logs)
	defer stop()

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// The OpenAI Agents SDK (agents.test.mjs) is set up as
	// docs/openai-and-anthropic.md#codex-cli-and-the-openai-agents-sdk-responses-api says:
	// the base URL and a Hearth key in the environment, trace export off.
	env := append(cleanEnv(), "HEARTH_URL="+serverURL, "HEARTH_KEY="+adminKey, "NO_COLOR=1",
		"OPENAI_BASE_URL="+serverURL+"/openai/v1", "OPENAI_API_KEY="+adminKey, "OPENAI_AGENTS_DISABLE_TRACING=1",
		"HEARTH_RESPONSES_MODELS=openai:gpt-4o-mini,anthropic:claude-sonnet-4-6,google:gemini-3-flash-preview,ollama:llama3.2")
	runNodeTests(t, ctx, node, dir, env, logs.String)
}

// openAIClientUpstream scripts the fake OpenAI upstream: a chat whose
// system prompt carries the memory chunk about cardamom answers with it;
// the model "down-model" fails with 503; image requests go to the fake
// Images API. Requests are served one at a time so a scripted reply goes
// to the request that asked for it.
func openAIClientUpstream(up, imgs *fake.Server) http.Handler {
	chat, _ := url.Parse(up.URL)
	images, _ := url.Parse(imgs.URL)
	toChat, toImages := httputil.NewSingleHostReverseProxy(chat), httputil.NewSingleHostReverseProxy(images)
	toChat.FlushInterval = -1
	var mu sync.Mutex
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if strings.Contains(r.URL.Path, "/images/") {
			toImages.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
		}
		json.Unmarshal(body, &req)
		if req.Model == "down-model" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"error":{"message":"The server is overloaded","type":"server_error"}}`)
			return
		}
		scriptByMarkers(up, body)
		for _, m := range req.Messages {
			if s, _ := m.Content.(string); m.Role == "system" && strings.Contains(s, "cardamom") {
				up.Enqueue(fake.Reply{Text: "The secret ingredient is cardamom."})
				break
			}
		}
		toChat.ServeHTTP(w, r)
	})
}
