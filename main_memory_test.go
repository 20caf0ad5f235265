package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/app/cli"
	"github.com/hearth-dev/hearth/server/app/config"
)

// TestHelperServe is the child process of TestKill9DuringIngestion: it runs
// "hearth serve" with the environment it was given.
func TestHelperServe(t *testing.T) {
	if os.Getenv("HEARTH_TEST_CHILD") != "1" {
		t.Skip("child process only")
	}
	os.Exit(cli.Run([]string{"serve"}, os.Getenv, io.Discard, os.Stderr))
}

const killTestKey = "hth_user_killtestkey000000000000000000"

// startChild runs the server in a child process and waits until it answers.
func startChild(t *testing.T, env []string, url string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServe$")
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	for i := 0; i < 200; i++ {
		if resp, err := http.Get(url + "/health"); err == nil {
			resp.Body.Close()
			return cmd
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("child server did not come up: %s", stderr.String())
	return nil
}

func call(t *testing.T, method, url string, body any, contentType string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		rd = bytes.NewReader(j)
	}
	req, _ := http.NewRequest(method, url, rd)
	req.Header.Set("Authorization", "Bearer "+killTestKey)
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

func docStatus(t *testing.T, url string) string {
	t.Helper()
	status, body := call(t, "GET", url+"/v1/memory/kb/documents", nil, "application/json")
	var docs []struct{ Name, Status string }
	if status != 200 || json.Unmarshal(body, &docs) != nil || len(docs) != 1 {
		t.Fatalf("documents: %d %s", status, body)
	}
	return docs[0].Status
}

// TestKill9DuringIngestion kills the server with SIGKILL while a document
// is being embedded (the fake provider hangs), restarts it on the same data
// dir, and expects the document to complete: nothing acknowledged is lost
// and nothing stays in progress.
func TestKill9DuringIngestion(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	up := fake.NewOpenAI()
	defer up.Close()
	up.SetDefault(fake.Reply{Hang: true})
	addr := freeAddr(t)
	url := "http://" + addr
	env := []string{"HEARTH_TEST_CHILD=1", "HEARTH_DATA=" + t.TempDir(), "HEARTH_ADDR=" + addr,
		"HEARTH_ADMIN_KEY=" + killTestKey, "HEARTH_LOG_LEVEL=error",
		"HEARTH_OPENAI_BASE_URL=" + up.BaseURL(), "HEARTH_OPENAI_API_KEY=sk-test"}
	child := startChild(t, env, url)

	if status, body := call(t, "POST", url+"/v1/memory", map[string]any{"name": "kb", "chunk_size": 1000, "chunk_overlap": 100}, "application/json"); status != 200 {
		t.Fatalf("create: %d %s", status, body)
	}
	status, body := call(t, "POST", url+"/v1/memory/documents", map[string]any{"memoryName": "kb", "fileName": "notes.md"}, "application/json")
	var step1 struct{ SignedURL string }
	if status != 200 || json.Unmarshal(body, &step1) != nil {
		t.Fatalf("step 1: %d %s", status, body)
	}
	doc := []byte("# Kill test\n\n" + strings.Repeat("Durable jobs survive a kill. ", 100))
	if status, body := call(t, "PUT", step1.SignedURL, doc, "text/markdown"); status != 200 {
		t.Fatalf("step 2: %d %s", status, body)
	}
	deadline := time.Now().Add(20 * time.Second)
	for up.Count() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the embedding request never reached the provider")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if s := docStatus(t, url); s != "in_progress" {
		t.Fatalf("status before the kill: %s", s)
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	child.Wait()

	up.SetDefault(fake.Reply{})
	startChild(t, env, url)
	deadline = time.Now().Add(30 * time.Second)
	for {
		s := docStatus(t, url)
		if s == "completed" {
			break
		}
		if s == "failed" || time.Now().After(deadline) {
			t.Fatalf("after the restart the document is %s", s)
		}
		time.Sleep(20 * time.Millisecond)
	}
	status, body = call(t, "POST", url+"/v1/memory/retrieve", map[string]any{"query": "durable jobs", "memory": []map[string]string{{"name": "kb"}}}, "application/json")
	if status != 200 || !strings.Contains(string(body), "Durable jobs survive a kill") {
		t.Fatalf("retrieve: %d %s", status, body)
	}
}

func TestMemoryConfig(t *testing.T) {
	cfg, _, err := config.Load("serve", nil, envMap(nil))
	if err != nil || cfg.Validate() != nil {
		t.Fatalf("defaults: %v", err)
	}
	if cfg.IngestWorkers != 0 || cfg.App(nil, nil, "").Memory.Fusion.VectorWeight != 1 || cfg.App(nil, nil, "").Memory.Fusion.KeywordWeight != 1 ||
		cfg.App(nil, nil, "").Parser.Timeout != time.Minute || cfg.ParseMemoryLimit != 1<<30 || cfg.ParseMaxOutput != 32<<20 {
		t.Fatalf("defaults: %+v", cfg)
	}
	if mc := cfg.App(nil, nil, "").Memory; mc.EmbedAttempts != 4 || mc.RetryMaxDelay != time.Minute || mc.Workers != 0 {
		t.Fatalf("memory defaults: %+v", mc)
	}
	cfg, _, _ = config.Load("serve", []string{"-embed-retries", "0"}, envMap(map[string]string{"HEARTH_EMBED_RETRY_MAX_WAIT": "1.5s"}))
	if mc := cfg.App(nil, nil, "").Memory; cfg.Validate() != nil || mc.EmbedAttempts != 1 || mc.RetryMaxDelay != 1500*time.Millisecond {
		t.Fatalf("retries set: %+v %v", mc, cfg.Validate())
	}
	cfg, _, _ = config.Load("serve", []string{"-ingest-workers", "8", "-retrieve-keyword-weight", "0"}, envMap(map[string]string{"HEARTH_RETRIEVE_VECTOR_WEIGHT": "2.5"}))
	if err := cfg.Validate(); err != nil || cfg.IngestWorkers != 8 || cfg.App(nil, nil, "").Memory.Fusion.VectorWeight != 2.5 || cfg.App(nil, nil, "").Memory.Fusion.KeywordWeight != 0 {
		t.Fatalf("set: %+v %v", cfg, err)
	}
	for name, tc := range map[string]struct {
		env  map[string]string
		want string
	}{
		"no workers":    {map[string]string{"HEARTH_INGEST_WORKERS": "-1"}, "HEARTH_INGEST_WORKERS"},
		"too many":      {map[string]string{"HEARTH_INGEST_WORKERS": "65"}, "HEARTH_INGEST_WORKERS"},
		"bad weight":    {map[string]string{"HEARTH_RETRIEVE_KEYWORD_WEIGHT": "lots"}, "HEARTH_RETRIEVE_KEYWORD_WEIGHT"},
		"negative":      {map[string]string{"HEARTH_RETRIEVE_VECTOR_WEIGHT": "-1"}, "HEARTH_RETRIEVE_VECTOR_WEIGHT"},
		"both zero":     {map[string]string{"HEARTH_RETRIEVE_VECTOR_WEIGHT": "0", "HEARTH_RETRIEVE_KEYWORD_WEIGHT": "0"}, "must not both be 0"},
		"not a number":  {map[string]string{"HEARTH_RETRIEVE_VECTOR_WEIGHT": "NaN"}, "HEARTH_RETRIEVE_VECTOR_WEIGHT"},
		"parse timeout": {map[string]string{"HEARTH_PARSE_TIMEOUT": "60"}, "HEARTH_PARSE_TIMEOUT"},
		"short timeout": {map[string]string{"HEARTH_PARSE_TIMEOUT": "10ms"}, "HEARTH_PARSE_TIMEOUT"},
		"long timeout":  {map[string]string{"HEARTH_PARSE_TIMEOUT": "2h"}, "HEARTH_PARSE_TIMEOUT"},
		"parse memory":  {map[string]string{"HEARTH_PARSE_MEMORY_LIMIT": "1000000"}, "HEARTH_PARSE_MEMORY_LIMIT"},
		"small output":  {map[string]string{"HEARTH_PARSE_MAX_OUTPUT": "1000"}, "HEARTH_PARSE_MAX_OUTPUT"},
		"large output":  {map[string]string{"HEARTH_PARSE_MAX_OUTPUT": "1073741824"}, "HEARTH_PARSE_MAX_OUTPUT"},
		"retries":       {map[string]string{"HEARTH_EMBED_RETRIES": "-1"}, "HEARTH_EMBED_RETRIES"},
		"many retries":  {map[string]string{"HEARTH_EMBED_RETRIES": "21"}, "HEARTH_EMBED_RETRIES"},
		"retry words":   {map[string]string{"HEARTH_EMBED_RETRIES": "three"}, "HEARTH_EMBED_RETRIES"},
		"max wait":      {map[string]string{"HEARTH_EMBED_RETRY_MAX_WAIT": "60"}, "HEARTH_EMBED_RETRY_MAX_WAIT"},
		"short wait":    {map[string]string{"HEARTH_EMBED_RETRY_MAX_WAIT": "1ms"}, "HEARTH_EMBED_RETRY_MAX_WAIT"},
		"long wait":     {map[string]string{"HEARTH_EMBED_RETRY_MAX_WAIT": "2h"}, "HEARTH_EMBED_RETRY_MAX_WAIT"},
	} {
		cfg, _, err := config.Load("serve", nil, envMap(tc.env))
		if err == nil {
			err = cfg.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want mention of %s", name, err, tc.want)
		}
	}
}
