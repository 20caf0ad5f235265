package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestApplyCommandChunking: a memory's declared chunking is applied, and
// a change of it is shown by --dry-run (the document to cut again and the
// memory) without being made, then made by apply.
func TestApplyCommandChunking(t *testing.T) {
	decl := t.TempDir()
	write := func(chunking string) {
		os.WriteFile(filepath.Join(decl, "hearth.yaml"), []byte(`
memories:
  - {name: kb, embedding_model: "hearth:hash-embed", chunking: `+chunking+`, documents: [{path: notes.md}]}
`), 0o644)
	}
	write("{mode: structure}")
	os.WriteFile(filepath.Join(decl, "notes.md"), []byte("# Notes\n\n## Hours\n\nThe office opens at nine.\n"), 0o644)
	data := t.TempDir()
	env := envMap(map[string]string{"HEARTH_ADMIN_KEY": "hth_user_" + strings.Repeat("c", 40)})
	cmd := func(args ...string) string {
		t.Helper()
		return runOK(t, env, append(args, "-data", data)...)
	}
	cmd("apply", decl)
	write("{mode: size}")
	plan := cmd("apply", decl, "--dry-run")
	for _, want := range []string{"update document admin/kb/notes.md (", "chunking size)", "update memory   admin/kb (chunking size)", "0 to create, 2 to update, 0 to delete"} {
		if !strings.Contains(plan, want) {
			t.Fatalf("dry run lacks %q:\n%s", want, plan)
		}
	}
	if again := cmd("apply", decl, "--dry-run"); again != plan {
		t.Fatalf("dry run changed something:\n%s", again)
	}
	cmd("apply", decl)
	if out := cmd("apply", decl, "--dry-run"); !strings.Contains(out, "0 to create, 0 to update, 0 to delete") {
		t.Fatalf("after the change: %s", out)
	}
	exported := t.TempDir()
	cmd("export", exported)
	if b, _ := os.ReadFile(filepath.Join(exported, "hearth.yaml")); !strings.Contains(string(b), "chunking:") || !strings.Contains(string(b), "mode: size") {
		t.Fatalf("export lacks the memory's chunking:\n%s", b)
	}
}
