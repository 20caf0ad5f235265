package cli

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestApplyCommand: --dry-run prints the plan and changes nothing; apply
// makes it; a second apply has nothing to do; export writes files that
// apply to an empty data dir with nothing left to change.
func TestApplyCommand(t *testing.T) {
	decl := t.TempDir()
	os.WriteFile(filepath.Join(decl, "hearth.yaml"), []byte(`
users: [{login: alice}]
memories:
  - {owner: alice, name: kb, embedding_model: "hearth:hash-embed", documents: [{path: notes.md}]}
pipes:
  - {owner: alice, name: helper, model: "hearth:echo", memory: [{name: kb}], messages: [{role: system, content_file: system.md}]}
`), 0o644)
	os.WriteFile(filepath.Join(decl, "notes.md"), []byte("# Notes\n\nThe office opens at nine.\n"), 0o644)
	os.WriteFile(filepath.Join(decl, "system.md"), []byte("Be brief."), 0o644)
	data := t.TempDir()
	env := envMap(map[string]string{"HEARTH_ADMIN_KEY": "hth_user_" + strings.Repeat("a", 40)})
	cmd := func(args ...string) string {
		t.Helper()
		return runOK(t, env, append(args, "-data", data)...)
	}
	plan := cmd("apply", decl, "--dry-run")
	for _, want := range []string{"create user     alice", "create memory   alice/kb", "create document alice/kb/notes.md", "create pipe     alice/helper", "4 to create, 0 to update, 0 to delete"} {
		if !strings.Contains(plan, want) {
			t.Fatalf("dry run lacks %q:\n%s", want, plan)
		}
	}
	if again := cmd("apply", decl, "--dry-run"); again != plan {
		t.Fatalf("dry run changed something:\n%s", again)
	}
	if out := cmd("apply", decl); !strings.Contains(out, "applied") {
		t.Fatalf("apply: %s", out)
	}
	if out := cmd("apply", decl); !strings.Contains(out, "0 to create, 0 to update, 0 to delete") {
		t.Fatalf("second apply: %s", out)
	}
	exported := t.TempDir()
	if out := cmd("export", exported); !strings.Contains(out, "1 pipes, 1 memories") {
		t.Fatalf("export: %s", out)
	}
	data = t.TempDir()
	cmd("apply", exported)
	if out := cmd("apply", exported); !strings.Contains(out, "0 to create, 0 to update, 0 to delete") {
		t.Fatalf("apply of the export: %s", out)
	}
}

// TestServeAppliesDir: HEARTH_APPLY_DIR is applied before the server
// listens (the pipe is there at once) next to the egress policy in force;
// a directory that does not apply stops the start with its error.
func TestServeAppliesDir(t *testing.T) {
	decl := t.TempDir()
	os.WriteFile(filepath.Join(decl, "p.json"), []byte(`{"pipes": [{"name": "greeter", "model": "hearth:echo", "description": "from files"}]}`), 0o644)
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "k.yaml"), []byte("keysets: [{provider: openai, key: sk-inline}]"), 0o644)
	key := "hth_user_" + strings.Repeat("b", 40)

	var out, errOut bytes.Buffer
	code := Run([]string{"serve"}, envMap(map[string]string{"HEARTH_DATA": t.TempDir(), "HEARTH_ADDR": freeAddr(t), "HEARTH_APPLY_DIR": bad}), &out, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), "HEARTH_APPLY_DIR") || !strings.Contains(errOut.String(), "key_env or key_file") {
		t.Fatalf("bad apply dir: exit %d: %s", code, errOut.String())
	}

	addr := freeAddr(t)
	env := envMap(map[string]string{"HEARTH_DATA": t.TempDir(), "HEARTH_ADDR": addr, "HEARTH_APPLY_DIR": decl, "HEARTH_ADMIN_KEY": key,
		"HEARTH_EGRESS": "allowlist", "HEARTH_EGRESS_ALLOW": "ollama.internal:11434"})
	out.Reset()
	errOut.Reset()
	done := make(chan int, 1)
	go func() { done <- Run([]string{"serve"}, env, &out, &errOut) }()
	get := func(path string) string {
		for i := 0; i < 100; i++ {
			req, _ := http.NewRequest("GET", "http://"+addr+path, nil)
			req.Header.Set("Authorization", "Bearer "+key)
			if resp, err := (&http.Client{Transport: &http.Transport{}}).Do(req); err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				return string(b)
			}
			time.Sleep(50 * time.Millisecond)
		}
		return ""
	}
	body, egress := get("/v1/pipes"), get("/v1/admin/egress")
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("no shutdown after SIGTERM")
	}
	if !strings.Contains(body, `"greeter"`) || !strings.Contains(body, "from files") {
		t.Fatalf("applied pipe not served: %s\n%s", body, errOut.String())
	}
	if !strings.Contains(egress, `"mode":"allowlist"`) || !strings.Contains(egress, `"allow":["ollama.internal:11434"]`) {
		t.Fatalf("egress policy in force: %s", egress)
	}
	// The old names of the outbound settings still work (above), with a
	// warning naming the new ones (logged at start, shown by -config-dump).
	out.Reset()
	if code := Run([]string{"serve", "-config-dump"}, env, &out, &errOut); code != 0 {
		t.Fatalf("-config-dump: exit %d: %s", code, errOut.String())
	}
	for _, w := range []string{"# deprecated: HEARTH_EGRESS is deprecated: use HEARTH_OUTBOUND ", "# deprecated: HEARTH_EGRESS_ALLOW is deprecated: use HEARTH_OUTBOUND_HOSTS ",
		"HEARTH_OUTBOUND=allowlist", "HEARTH_OUTBOUND_HOSTS=ollama.internal:11434"} {
		if strings.Count(out.String(), w) != 1 {
			t.Errorf("-config-dump lacks one %q:\n%s", w, out.String())
		}
	}
}
