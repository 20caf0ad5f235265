package app_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/server/app"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestNewChecksModelsFileUnlessDeferred: New refuses a models file entry
// naming a provider that exists nowhere; with DeferModelsFileCheck it
// builds and leaves the same refusal to CheckModelsFile.
func TestNewChecksModelsFileUnlessDeferred(t *testing.T) {
	p := filepath.Join(t.TempDir(), "models.yaml")
	if err := os.WriteFile(p, []byte("models:\n- {provider: nowhere, model: x, prompt: 1, completion: 2}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := providers.LoadModelsFile(p)
	if err != nil {
		t.Fatal(err)
	}
	want := "HEARTH_MODELS_FILE " + p + `: models[0] (nowhere:x): provider: "nowhere" is not a built-in`
	cfg := servertest.Config(t.TempDir(), "http://127.0.0.1:1")
	cfg.Providers.Models = m
	if a, err := app.New(cfg); err == nil || !strings.Contains(err.Error(), want) {
		if a != nil {
			a.Close(context.Background())
		}
		t.Fatalf("New: %v, want %q", err, want)
	}
	cfg.DeferModelsFileCheck = true
	a, err := app.New(cfg)
	if err != nil {
		t.Fatalf("New with the check deferred: %v", err)
	}
	defer a.Close(context.Background())
	if err := a.CheckModelsFile(); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("CheckModelsFile: %v, want %q", err, want)
	}
}
