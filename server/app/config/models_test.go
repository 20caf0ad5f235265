package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestModelsFileConfig: HEARTH_MODELS_FILE is loaded and checked by
// Validate, reaches the provider registry's configuration, and a bad
// file stops the start with an error naming the file, entry and field.
func TestModelsFileConfig(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "models.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(good, []byte("models:\n- {provider: openai, model: gpt-9, prompt: 1, completion: 4}\n"), 0o600)
	os.WriteFile(bad, []byte("models:\n- {provider: openai, model: gpt-9, prompt: 1, completion: 4}\n- {provider: openai, model: gpt-10, prompt: -1, completion: 4}\n"), 0o600)

	cfg, _, err := Load("serve", nil, envMap(map[string]string{"HEARTH_MODELS_FILE": good}))
	if err != nil || cfg.Validate() != nil {
		t.Fatalf("good file: %v %v", err, cfg.Validate())
	}
	ac := cfg.App(make([]byte, 32), nil, "test")
	if ac.Providers.Models == nil || ac.Providers.Models.File() != good {
		t.Fatalf("models not handed to the registry: %+v", ac.Providers.Models)
	}

	cfg, _, err = Load("serve", []string{"-models-file", bad}, envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	err = cfg.Validate()
	want := "HEARTH_MODELS_FILE " + bad + ": models[1] (openai:gpt-10): prompt: must not be negative"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("bad file: %v, want %q", err, want)
	}
	cfg, _, _ = Load("serve", nil, envMap(map[string]string{"HEARTH_MODELS_FILE": filepath.Join(dir, "missing.yaml")}))
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "HEARTH_MODELS_FILE") || !strings.Contains(err.Error(), "missing.yaml") {
		t.Fatalf("missing file: %v", err)
	}
}
