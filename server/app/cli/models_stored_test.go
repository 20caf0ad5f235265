package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// writeFile writes content to name in a fresh directory and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// catalogueEntry returns the /v1/models entry of id served by h (nil when
// missing).
func catalogueEntry(t *testing.T, h http.Handler, key, id string) map[string]any {
	t.Helper()
	req := httptest.NewRequest("GET", "/v1/models", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var cat map[string][]map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &cat); err != nil {
		t.Fatalf("/v1/models: %d %s", rec.Code, rec.Body)
	}
	for _, list := range cat {
		for _, m := range list {
			if m["id"] == id {
				return m
			}
		}
	}
	return nil
}

// gpuEntry prices gpu:llama-70b, a model only a stored deployment serves.
const gpuEntry = "models:\n- {provider: gpu, model: llama-70b, prompt: 0.5, completion: 1.5, context_window: 32000}\n"

// TestModelsFileNamesStoredDeploymentAlias: a models file entry for an
// alias provider that only a stored deployment declares is accepted at
// start and in force (/v1/models shows its price and window); an entry
// naming a provider that exists nowhere stops hearth serve with an error
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

	cfg := testConfig(t, dir, key)
	cfg.ModelsFile = writeFile(t, "models.yaml", gpuEntry)
	if err := cfg.Validate(); err != nil {
		t.Fatalf("Validate refuses what only the store can vouch for: %v", err)
	}
	a = buildApp(t, cfg)
	err := a.CheckModelsFile()
	m := catalogueEntry(t, a.Server.Handler(), key, "gpu:llama-70b")
	a.Close(ctx)
	if err != nil {
		t.Fatalf("a models file naming a stored deployment's alias: %v", err)
	}
	if m == nil || m["source"] != "operator" || m["promptCost"] != 0.5 || m["contextWindow"] != 32000.0 {
		t.Fatalf("gpu:llama-70b in /v1/models: %v", m)
	}

	bad := writeFile(t, "models.yaml", gpuEntry+"- {provider: nowhere, model: x, prompt: 1, completion: 2}\n")
	var out bytes.Buffer
	err = serve(nil, envMap(map[string]string{"HEARTH_DATA": dir, "HEARTH_ADDR": "127.0.0.1:0", "HEARTH_LOG_LEVEL": "error",
		"HEARTH_ADMIN_KEY": key, "HEARTH_MODELS_FILE": bad}), &out, &out)
	want := "HEARTH_MODELS_FILE " + bad + `: models[1] (nowhere:x): provider: "nowhere" is not a built-in or configured provider, nor the alias of a deployment (configured or stored)`
	if err == nil || err.Error() != want {
		t.Fatalf("serve: %v, want %q", err, want)
	}
}

// TestModelsFileNamesAliasOfApplyDir: on a fresh data dir, a models file
// may name the alias of a deployment HEARTH_APPLY_DIR declares: hearth
// serve checks the file after applying the directory, so it starts and
// prices the model.
func TestModelsFileNamesAliasOfApplyDir(t *testing.T) {
	const key = "models-test-admin-key-0002"
	decl := filepath.Dir(writeFile(t, "deployments.yaml", "deployments:\n  - {name: gpu1, model: 'gpu:llama-70b', base_url: 'http://127.0.0.1:1/v1'}\n"))
	addr := freeAddr(t)
	var out, errOut bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- serve(nil, envMap(map[string]string{"HEARTH_DATA": t.TempDir(), "HEARTH_ADDR": addr, "HEARTH_LOG_LEVEL": "error",
			"HEARTH_ADMIN_KEY": key, "HEARTH_APPLY_DIR": decl, "HEARTH_MODELS_FILE": writeFile(t, "models.yaml", gpuEntry)}), &out, &errOut)
	}()
	var m map[string]any
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("serve stopped: %v %s", err, errOut.String())
		default:
		}
		req, _ := http.NewRequest("GET", "http://"+addr+"/v1/models", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		if res, err := http.DefaultClient.Do(req); err == nil {
			var cat map[string][]map[string]any
			json.NewDecoder(res.Body).Decode(&cat)
			res.Body.Close()
			for _, e := range cat["gpu"] {
				if e["id"] == "gpu:llama-70b" {
					m = e
				}
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not come up: %s", errOut.String())
		}
	}
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve: %v %s", err, errOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no shutdown after SIGTERM")
	}
	if m == nil || m["source"] != "operator" || m["promptCost"] != 0.5 {
		t.Fatalf("gpu:llama-70b in /v1/models: %v", m)
	}
}
