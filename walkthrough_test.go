package main

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// walkthroughFence opens the README's Quick start blocks that this test
// runs; the README and the server's behaviour cannot drift apart.
const walkthroughFence = "```sh walkthrough\n"

// walkthroughDocs hold the walkthrough, in the order it runs: the
// README's Quick start, then the Responses and Messages API blocks of
// the guide to those surfaces, which continue it (same variables).
var walkthroughDocs = []string{"README.md", "docs/openai-and-anthropic.md"}

// walkthroughBlocks returns the shell blocks of walkthroughDocs marked
// "sh walkthrough", in order.
func walkthroughBlocks(t *testing.T) []string {
	t.Helper()
	var blocks []string
	for _, doc := range walkthroughDocs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		rest := string(b)
		for {
			i := strings.Index(rest, walkthroughFence)
			if i < 0 {
				break
			}
			rest = rest[i+len(walkthroughFence):]
			j := strings.Index(rest, "\n```")
			if j < 0 {
				t.Fatalf("%s: unterminated walkthrough block", doc)
			}
			blocks = append(blocks, rest[:j+1])
			rest = rest[j:]
		}
	}
	return blocks
}

// TestReadmeWalkthrough runs the README's Quick start walkthrough with
// bash and curl against the real binary started as the README says (a
// chosen HEARTH_ADMIN_KEY, no provider key), stopping at the first
// command that fails or any request answered with an error status.
func TestReadmeWalkthrough(t *testing.T) {
	blocks := walkthroughBlocks(t)
	if len(blocks) < 6 {
		t.Fatalf("README has %d walkthrough blocks, want the whole Quick start", len(blocks))
	}
	for _, tool := range []string{"bash", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is needed to run the README walkthrough", tool)
			}
			t.Skipf("%s not installed", tool)
		}
	}
	key := regexp.MustCompile(`(?m)^KEY=(\S+)`).FindStringSubmatch(blocks[0])
	if key == nil {
		t.Fatal("the first walkthrough block does not define KEY")
	}
	bin := hearthBinary(t)
	addr := freeAddr(t)
	env := []string{"HEARTH_DATA=" + t.TempDir(), "HEARTH_ADDR=" + addr, "HEARTH_ADMIN_KEY=" + key[1],
		"HEARTH_LOG_LEVEL=info", "HEARTH_OPENAI_API_KEY=", "HEARTH_OPENAI_BASE_URL="}
	p := startBinary(t, bin, env, addr)

	// curl fails on an error status (with the body shown) and never hangs.
	script := "set -euo pipefail\ncurl() { command curl --fail-with-body --max-time 30 \"$@\"; }\n" +
		strings.ReplaceAll(strings.Join(blocks, ""), "localhost:8080", addr)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil {
		p.kill() // the log is read once the process has ended
		t.Fatalf("walkthrough failed: %v\n%s\n--- server log ---\n%s", err, out, p.stderr.String())
	}
	for _, want := range []string{
		`"login":"admin"`,
		`"completion":"Hello, Hearth!"`,
		`{"content":"Stream "}`,
		"data: [DONE]",
		`"completion":"What did I say first?"`,
		`"content":"Hello, Hearth!"`,
		`"documentStatus":"queued"`,
		`"documentName":"badgers.txt"`,
		`"sources":[{"memory":"notes","document":"badgers.txt"`,
		`"type":"output_text","text":"Hello from Responses"`,
		"event: response.completed",
		`"type":"input_text","text":"Second turn"`,
		`"content":[{"type":"text","text":"Hello from Messages"}]`,
		`"delta":{"text":"Streamed ","type":"text_delta"}`,
		"event: message_stop",
		`{"input_tokens":8}`,
		"lb-token-count: estimate",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("walkthrough output lacks %s", want)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}

	// With no provider configured, a pipe and a memory created without a
	// model get the offline defaults, and the start-up log says so.
	p.key = key[1]
	if _, _, h, _ := p.do("POST", "/v1/pipes", map[string]any{"name": "defaults"}); h.Get("lb-warning") != "" {
		t.Errorf("offline default pipe warned: %s", h.Get("lb-warning"))
	}
	if b := p.must(t, "GET", "/v1/pipes/defaults", nil); !strings.Contains(string(b), `"model":"hearth:echo"`) {
		t.Errorf("default pipe: %s", b)
	}
	if b := p.must(t, "POST", "/v1/memory", map[string]any{"name": "defaults"}); !strings.Contains(string(b), `"embedding_model":"hearth:bm25"`) {
		t.Errorf("default memory: %s", b)
	}
	p.kill() // the log is read once the process has ended
	log := p.stderr.String()
	for _, want := range []string{`msg="default models" model=hearth:echo embedding_model=hearth:bm25`,
		`msg="listening on this machine only`, `url=http://` + addr + `/studio/`} {
		if !strings.Contains(log, want) {
			t.Errorf("start-up log lacks %s:\n%s", want, log)
		}
	}
}
