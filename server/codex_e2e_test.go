package server_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// codexCatalog describes the test model to Codex as one of its own
// coding models, so Codex offers apply_patch as a freeform (custom) tool
// and sends reasoning and verbosity options, as it does for OpenAI's
// Codex models.
const codexCatalog = `{"models":[{"slug":"openai:gpt-4o-mini","display_name":"Hearth test model","description":"test",
"supports_reasoning_summaries":true,"support_verbosity":true,"default_verbosity":"low","apply_patch_tool_type":"freeform",
"input_modalities":["text"],"truncation_policy":{"mode":"tokens","limit":10000},"supports_parallel_tool_calls":true,
"context_window":128000,"reasoning_summary_format":"experimental","default_reasoning_level":"low",
"supported_reasoning_levels":[{"effort":"low","description":"low"}],"shell_type":"shell_command","visibility":"list",
"minimal_client_version":"0.0.1","supported_in_api":true,"upgrade":null,"priority":0,"experimental_supported_tools":[],
"base_instructions":"You are a coding agent."}]}`

// TestCodexCLIEndToEnd runs the real Codex CLI (pinned in
// testdata/codex/package-lock.json) with `codex exec` against
// /openai/v1/responses, configured as
// docs/openai-and-anthropic.md#codex-cli-and-the-openai-agents-sdk-responses-api
// says (a model provider with wire_api = "responses"), on a fake OpenAI
// upstream. The model runs a shell command with exec_command, then edits a file
// with the freeform apply_patch tool, then answers: each tool's result reaches
// the upstream in the next request, the file is written, and Codex prints the
// answer. Codex's request carries what it always sends (store false, include
// reasoning.encrypted_content, prompt_cache_key, reasoning.summary,
// text.verbosity, a namespace tool and web_search).
func TestCodexCLIEndToEnd(t *testing.T) {
	_, dir, node := nodeSuite(t, "Codex CLI", "codex", "@openai/codex")
	up := fake.NewOpenAI()
	defer up.Close()
	ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), "sk-test"))

	home, work := t.TempDir(), t.TempDir()
	config := `model = "openai:gpt-4o-mini"
model_provider = "hearth"
model_catalog_json = "` + filepath.Join(home, "catalog.json") + `"
check_for_update_on_startup = false

[analytics]
enabled = false

[model_providers.hearth]
name = "Hearth"
base_url = "` + ts.URL + `/openai/v1"
env_key = "HEARTH_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
`
	for name, body := range map[string]string{"config.toml": config, "catalog.json": codexCatalog} {
		if err := os.WriteFile(filepath.Join(home, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	patch := "*** Begin Patch\n*** Add File: hello.txt\n+written by apply_patch through Hearth\n*** End Patch\n"
	patchArgs, _ := json.Marshal(map[string]string{"input": patch})
	up.Enqueue(
		fake.Reply{ToolCalls: []fake.ToolCall{{ID: "call_shell", Name: "exec_command", Arguments: `{"cmd":"echo hearth-codex-ok"}`}}},
		fake.Reply{ToolCalls: []fake.ToolCall{{ID: "call_patch", Name: "apply_patch", Arguments: string(patchArgs)}}},
		fake.Reply{Text: "All done through Hearth."},
	)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "node_modules", "@openai", "codex", "bin", "codex.js"),
		"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "-C", work, "Say hello in a file")
	cmd.Dir = work
	// Update checks and analytics are off; anything else Codex would
	// fetch from the internet goes to a dead proxy on loopback, so the
	// test stays offline (Hearth itself is on loopback, not proxied).
	cmd.Env = append(cleanEnv(), "HOME="+home, "CODEX_HOME="+home, "HEARTH_KEY="+servertest.AdminKey, "NO_COLOR=1", "RUST_LOG=error",
		"HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9", "ALL_PROXY=http://127.0.0.1:9",
		"https_proxy=http://127.0.0.1:9", "http_proxy=http://127.0.0.1:9", "all_proxy=http://127.0.0.1:9",
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost")
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("codex exec: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "All done through Hearth.") {
		t.Fatalf("codex did not print the answer:\n%s", out)
	}
	b, err := os.ReadFile(filepath.Join(work, "hello.txt"))
	if err != nil || string(b) != "written by apply_patch through Hearth\n" {
		t.Fatalf("apply_patch: %q %v\n%s", b, err, out)
	}

	reqs := up.Requests()
	if len(reqs) != 3 {
		t.Fatalf("upstream saw %d requests, want 3\n%s", len(reqs), out)
	}
	type chatReq struct {
		Messages []struct {
			Role       string `json:"role"`
			Content    any    `json:"content"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	var first chatReq
	json.Unmarshal(reqs[0].Body, &first)
	names := map[string]string{}
	for _, tool := range first.Tools {
		names[tool.Function.Name] = string(tool.Function.Parameters)
	}
	if !strings.Contains(names["apply_patch"], `"input"`) || names["exec_command"] == "" || names["multi_agent_v1__spawn_agent"] == "" {
		t.Fatalf("tools offered upstream: %v", names)
	}
	if _, ok := names["web_search"]; ok {
		t.Fatal("web_search reached the upstream")
	}
	toolResult := func(i int, id string) string {
		var r chatReq
		json.Unmarshal(reqs[i].Body, &r)
		for _, m := range r.Messages {
			if m.Role == "tool" && m.ToolCallID == id {
				s, _ := json.Marshal(m.Content)
				return string(s)
			}
		}
		t.Fatalf("request %d has no result of %s: %s", i, id, reqs[i].Body)
		return ""
	}
	if got := toolResult(1, "call_shell"); !strings.Contains(got, "hearth-codex-ok") {
		t.Fatalf("shell result: %s", got)
	}
	if got := toolResult(2, "call_patch"); !strings.Contains(got, "hello.txt") {
		t.Fatalf("apply_patch result: %s", got)
	}
}
