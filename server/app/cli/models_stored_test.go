package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/server/app"
)

// TestModelsFileNamesStoredDeploymentAlias: a models file entry for an
// alias provider that only a stored deployment declares is accepted at
// start and in force (/v1/models shows its price and window); an entry
// naming a provider that exists nowhere stops the start with an error
// naming the setting, the file, the entry and the rule.
func TestModelsFileNamesStoredDeploymentAlias(t *testing.T) {
	const key = "models-test-admin-key-0001"
	ctx := context.Background()
	dir := t.TempDir()
	a := buildApp(t, testConfig(t, dir, key))
	if _, err := a.StoredDeployments.Create(ctx, engine.StoredDeployment{Name: "gpu1", Model: "gpu:llama-70b", BaseURL: "http://127.0.0.1:1/v1"}); err != nil {
		t.Fatal(err)
	}
	a.Close(ctx)

	start := func(models string) (*app.App, string, error) {
		t.Helper()
		file := filepath.Join(t.TempDir(), "models.yaml")
		if err := os.WriteFile(file, []byte(models), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg := testConfig(t, dir, key)
		cfg.ModelsFile = file
		if err := cfg.Validate(); err != nil {
			t.Fatalf("Validate refuses what only the store can vouch for: %v", err)
		}
		a, err := Build(cfg, envMap(nil), cfg.Logger(), io.Discard)
		return a, file, err
	}

	a, _, err := start("models:\n- {provider: gpu, model: llama-70b, prompt: 0.5, completion: 1.5, context_window: 32000}\n")
	if err != nil {
		t.Fatalf("a models file naming a stored deployment's alias: %v", err)
	}
	ts := httptest.NewServer(a.Server.Handler())
	req, _ := http.NewRequest("GET", ts.URL+"/v1/models", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var cat map[string][]map[string]any
	err = json.NewDecoder(res.Body).Decode(&cat)
	res.Body.Close()
	ts.Close()
	a.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	for _, m := range cat["gpu"] {
		if m["id"] == "gpu:llama-70b" {
			got = m
		}
	}
	if got == nil || got["source"] != "operator" || got["promptCost"] != 0.5 || got["contextWindow"] != 32000.0 {
		t.Fatalf("gpu:llama-70b in /v1/models: %v (catalogue %v)", got, cat)
	}

	b, file, err := start("models:\n- {provider: gpu, model: llama-70b, prompt: 0.5, completion: 1.5}\n- {provider: nowhere, model: x, prompt: 1, completion: 2}\n")
	if err == nil {
		b.Close(ctx)
		t.Fatal("an entry naming a provider that exists nowhere was accepted")
	}
	want := "HEARTH_MODELS_FILE " + file + `: models[1] (nowhere:x): provider: "nowhere" is not a built-in or configured provider, nor the alias of a deployment (configured or stored)`
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want %q", err, want)
	}
}
