package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// claudeCodeNote is what the file Claude Code is asked to read holds.
const claudeCodeNote = "hearth-note-42"

// TestClaudeCodeEndToEnd runs the real Claude Code CLI (pinned in
// testdata/claude-code/package-lock.json) non-interactively against
// Hearth's /anthropic surface, every model it asks for mapped by the
// alias table to a fake local OpenAI-compatible server (ollama): the
// model calls Claude Code's Read tool on a file, Claude Code runs it and
// sends the result back, and the answer quotes the file. HOME is a
// temporary directory; telemetry, error reporting and auto-update are
// off, so nothing leaves the machine.
//
// It needs testdata/claude-code/node_modules (`npm ci --prefix
// testdata/claude-code`); without it it skips, except under CI.
func TestClaudeCodeEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("Claude Code end-to-end test skipped in -short mode")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	claude := filepath.Join(root, "testdata", "claude-code", "node_modules", ".bin", "claude")
	if _, err := os.Stat(claude); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing; CI must run the Claude Code end-to-end test (run `npm ci --prefix testdata/claude-code`)", claude)
		}
		t.Skipf("%s is missing: run `npm ci --prefix testdata/claude-code` to enable the Claude Code end-to-end test", claude)
	}

	work := t.TempDir()
	note := filepath.Join(work, "note.txt")
	if err := os.WriteFile(note, []byte(claudeCodeNote+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, family := range []string{"ollama", "anthropic"} {
		t.Run(family, func(t *testing.T) { runClaudeCode(t, claude, work, note, family) })
	}
}

// runClaudeCode runs Claude Code in work against Hearth whose upstream is
// a fake of family: ollama (every model aliased to it) or Anthropic (the
// Claude models Claude Code asks for, as they are).
func runClaudeCode(t *testing.T, claude, work, note, family string) {
	up := fake.NewAnthropic()
	if family == "ollama" {
		up.Close()
		up = fake.NewOpenAIHost("ollama")
	}
	t.Cleanup(up.Close)
	seen := &claudeCodeRequests{}
	proxy := httptest.NewServer(claudeCodeUpstream(up, note, seen))
	t.Cleanup(proxy.Close)
	opts := []servertest.Option{servertest.WithProvider(family, proxy.URL+"/v1", "sk-upstream")}
	if family == "ollama" {
		opts = append(opts, servertest.WithConfig(func(c *server.Config) { c.AnthropicModelAliases = map[string]string{"*": "ollama:qwen3-coder"} }))
	}
	ts := servertest.Start(t, opts...)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "-p", "Read the file "+note+" and tell me what it says.",
		"--output-format", "json", "--allowedTools", "Read")
	cmd.Dir = work
	home := t.TempDir()
	cmd.Env = append(cleanEnv(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"ANTHROPIC_BASE_URL="+ts.URL+"/anthropic", "ANTHROPIC_API_KEY="+admin,
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "NO_COLOR=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("claude: %v\nstdout: %s\nstderr: %s\nrequests: %s", err, out, stderr.String(), seen)
	}
	var res struct {
		Type     string `json:"type"`
		Subtype  string `json:"subtype"`
		IsError  bool   `json:"is_error"`
		Result   string `json:"result"`
		NumTurns int    `json:"num_turns"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("claude output %s: %v", out, err)
	}
	if res.IsError || res.Subtype != "success" || !strings.Contains(res.Result, claudeCodeNote) || res.NumTurns < 2 {
		t.Fatalf("claude result %s\nrequests: %s", out, seen)
	}
	if !seen.toolResult {
		t.Fatalf("the Read tool's result never reached the upstream: %s", seen)
	}
}

// claudeCodeRequests notes what reached the fake upstream.
type claudeCodeRequests struct {
	mu         sync.Mutex
	models     []string
	toolResult bool
}

func (r *claudeCodeRequests) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"models": r.models, "tool_result": r.toolResult})
	return string(b)
}

// claudeCodeUpstream scripts the fake upstream of the Claude Code test: a
// conversation that offers the Read tool and asks about the note calls
// Read on it; once the tool's result (the note's text) comes back, the
// answer quotes it.
func claudeCodeUpstream(up *fake.Server, note string, seen *claudeCodeRequests) http.Handler {
	return scriptedUpstream(up, func(_ *http.Request, body []byte) {
		var req struct {
			Model string `json:"model"`
		}
		json.Unmarshal(body, &req)
		// Only the Read tool's result carries the note's text.
		result := strings.Contains(string(body), claudeCodeNote)
		seen.mu.Lock()
		seen.models = append(seen.models, req.Model)
		seen.toolResult = seen.toolResult || result
		seen.mu.Unlock()
		switch {
		case result:
			up.Enqueue(fake.Reply{Text: "The note says " + claudeCodeNote + "."})
		case strings.Contains(string(body), `"name":"Read"`) && strings.Contains(string(body), "note.txt"):
			args, _ := json.Marshal(map[string]string{"file_path": note})
			up.Enqueue(fake.Reply{ToolCalls: []fake.ToolCall{{ID: "call_read", Name: "Read", Arguments: string(args)}}})
		}
	})
}
