package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// "hearth restore" checks that the secret key the restored server will use
// decrypts the restored provider keysets and says what to do when it does
// not; a run then fails with 412 naming the keyset, not a bare 500.
func TestRestoreWithoutSecretKey(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := testConfig(t, dir, "restore-test-admin-key-01")
	a := buildApp(t, cfg)
	if _, err := a.Deps.Keysets.Set(ctx, engine.OwnerScope("admin"), "openai", "sk-restore-test-1234"); err != nil {
		t.Fatal(err)
	}
	a.Close(ctx)
	var msg bytes.Buffer
	file := filepath.Join(t.TempDir(), "b.zst")
	if err := backupCmd([]string{"-data", dir, "-out", file}, envMap(nil), &msg, &msg); err != nil {
		t.Fatal(err)
	}

	// Without the old secret: a loud warning naming the keyset and the fix.
	msg.Reset()
	target := filepath.Join(t.TempDir(), "restored")
	if err := restoreCmd([]string{"-data", target, "-in", file}, envMap(nil), &msg); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"WARNING: 1 of 1 stored provider keysets cannot be decrypted", "has no secret.key", "owner:admin/openai",
		"copy the secret.key", filepath.Join(target, "secret.key")} {
		if !strings.Contains(msg.String(), want) {
			t.Fatalf("restore output lacks %q:\n%s", want, msg.String())
		}
	}
	if _, err := os.Stat(filepath.Join(target, "secret.key")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the check created a secret key: %v", err)
	}
	// Started anyway (a new secret.key is made): the key's use names the keyset.
	cfg.Data = target
	a = buildApp(t, cfg)
	_, err := a.Deps.Keysets.Resolve(ctx, "openai", "", "", "admin")
	a.Close(ctx)
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != engine.CodePreconditionFailed || !strings.Contains(e.Message, "keyset owner:admin") ||
		!strings.Contains(e.Message, "PUT /v1/keysets/openai") {
		t.Fatalf("resolve: %v", err)
	}

	// With the old secret in HEARTH_SECRET_KEY: no warning.
	old, err := os.ReadFile(filepath.Join(dir, "secret.key"))
	if err != nil {
		t.Fatal(err)
	}
	msg.Reset()
	target2 := filepath.Join(t.TempDir(), "restored2")
	if err := restoreCmd([]string{"-data", target2, "-in", file}, envMap(map[string]string{"HEARTH_SECRET_KEY": strings.TrimSpace(string(old))}), &msg); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(msg.String(), "WARNING") || !strings.Contains(msg.String(), "restored into") {
		t.Fatalf("restore with the secret: %s", msg.String())
	}
}
