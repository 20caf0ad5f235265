package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/blob/postgres/pgtest"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/app/cli"
	"github.com/hearth-dev/hearth/server/app/config"
	"github.com/hearth-dev/hearth/server/servertest"
)

const clusterSecret = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

// TestClusterSettings: HEARTH_DATABASE_URL must be a postgres:// URL,
// HEARTH_DATABASE_MAX_CONNS a count in range, and cluster mode refuses to start without HEARTH_SECRET_KEY.
func TestClusterSettings(t *testing.T) {
	for _, bad := range []string{"mysql://h/db", "postgres://", "not a url"} {
		cfg, _, err := config.Load("serve", nil, envMap(map[string]string{"HEARTH_DATABASE_URL": bad}))
		if err == nil {
			err = cfg.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), "HEARTH_DATABASE_URL") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	cfg, _, err := config.Load("serve", []string{"-database-url", "postgresql://u:p@db:5432/hearth"}, envMap(nil))
	if err != nil || cfg.Validate() != nil || !cfg.Clustered() {
		t.Fatalf("flag: %v %+v", err, cfg.DatabaseURL)
	}
	for _, bad := range []string{"-1", "10001"} {
		cfg, _, err := config.Load("serve", nil, envMap(map[string]string{"HEARTH_DATABASE_MAX_CONNS": bad}))
		if err == nil {
			err = cfg.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), "HEARTH_DATABASE_MAX_CONNS") {
			t.Errorf("HEARTH_DATABASE_MAX_CONNS=%s: %v", bad, err)
		}
	}
	cfg, _, err = config.Load("serve", []string{"-database-max-conns", "24"}, envMap(map[string]string{"HEARTH_DATABASE_URL": "postgres://db/hearth"}))
	if err != nil || cfg.Validate() != nil || cfg.App(nil, nil, "").DatabaseMaxConns != 24 {
		t.Fatalf("-database-max-conns 24: %v %+v", err, cfg)
	}
	var stderr bytes.Buffer
	env := envMap(map[string]string{"HEARTH_DATA": t.TempDir(), "HEARTH_ADDR": "127.0.0.1:0", "HEARTH_DATABASE_URL": "postgres://127.0.0.1:1/hearth"})
	if code := cli.Run([]string{"serve"}, env, &bytes.Buffer{}, &stderr); code != 1 || !strings.Contains(stderr.String(), "HEARTH_SECRET_KEY is required") {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
}

// TestClusterThreeProcesses runs three `hearth serve` processes on one
// PostgreSQL database: any node serves what another wrote, a key revoked on
// one is refused by the others, and a fourth node with another secret
// refuses to start and says why.
func TestClusterThreeProcesses(t *testing.T) {
	url := pgtest.URL(t)
	bin := hearthBinary(t)
	up := fake.NewOpenAI()
	defer up.Close()
	var nodes []*proc
	for range 3 {
		env, addr := faultEnv(t, up.BaseURL())
		nodes = append(nodes, startBinary(t, bin, append(env, "HEARTH_DATABASE_URL="+url, "HEARTH_SECRET_KEY="+clusterSecret), addr))
	}
	nodes[0].must(t, "POST", "/v1/pipes", map[string]any{"name": "helper", "model": "openai:gpt-4o-mini"})
	_, _, h, err := nodes[1].do("POST", "/v1/pipes/run", map[string]any{"name": "helper", "stream": false,
		"messages": []map[string]string{{"role": "user", "content": "hi"}}})
	thread := h.Get("lb-thread-id")
	if err != nil || thread == "" {
		t.Fatalf("run on node 1: %v %v", err, h)
	}
	nodes[2].must(t, "POST", "/v1/threads/"+thread+"/messages", []any{map[string]any{"role": "user", "content": "from node 2"}})
	var msgs []map[string]any
	json.Unmarshal(nodes[0].must(t, "GET", "/v1/threads/"+thread+"/messages", nil), &msgs)
	if len(msgs) != 3 || msgs[2]["content"] != "from node 2" {
		t.Fatalf("thread on node 0: %v", msgs)
	}
	var created struct {
		Key  string `json:"key"`
		Info struct {
			ID string `json:"id"`
		} `json:"info"`
	}
	json.Unmarshal(nodes[1].must(t, "POST", "/v1/keys", map[string]any{"name": "temp"}), &created)
	nodes[0].must(t, "DELETE", "/v1/keys/"+created.Info.ID, nil)
	// Each node drops the key from its cache when its change feed
	// delivers the revoke (milliseconds; the bound is for a loaded machine).
	for i, n := range nodes {
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			status, _, err := n.doKey("GET", "/v1/pipes", created.Key)
			if err == nil && status == 401 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("revoked key on node %d after 30s: %d %v", i, status, err)
			}
		}
	}

	env, _ := faultEnv(t, up.BaseURL())
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), append(env, "HEARTH_DATABASE_URL="+url, "HEARTH_SECRET_KEY="+strings.Repeat("ab", 32))...)
	done := make(chan struct{})
	var out []byte
	go func() { out, _ = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("a node with another secret kept running")
	}
	if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), "HEARTH_SECRET_KEY does not match") {
		t.Fatalf("node with another secret: exit %d: %s", cmd.ProcessState.ExitCode(), out)
	}
}

// doKey sends a request with the given key instead of the test key.
func (p *proc) doKey(method, path, key string) (int, []byte, error) {
	req, err := http.NewRequest(method, p.url+path, nil)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// TestClusterAdminCommands: in cluster mode the admin commands work on the
// shared database while nodes serve it: a user and key created by the CLI
// authenticate on a running node at once; keysets need HEARTH_SECRET_KEY.
func TestClusterAdminCommands(t *testing.T) {
	url := pgtest.URL(t)
	node := servertest.Start(t, servertest.WithDatabase(url))
	env := envMap(map[string]string{"HEARTH_DATABASE_URL": url, "HEARTH_DATA": t.TempDir()})
	var stdout, stderr bytes.Buffer
	if code := cli.Run([]string{"users", "create", "bob"}, env, &stdout, &stderr); code != 0 {
		t.Fatalf("users create: %d %s", code, stderr.String())
	}
	stdout.Reset()
	if code := cli.Run([]string{"keys", "create", "--user", "bob"}, env, &stdout, &stderr); code != 0 {
		t.Fatalf("keys create: %d %s", code, stderr.String())
	}
	key := strings.TrimSpace(stdout.String()[strings.LastIndex(stdout.String(), ":")+1:])
	if r := node.Do("GET", "/v1/pipes", key, nil); r.Status != 200 {
		t.Fatalf("CLI key on the node: %d %s (key %q)", r.Status, r.Body, key)
	}
	stderr.Reset()
	if code := cli.Run([]string{"keysets", "set", "--user", "bob", "--provider", "openai", "--key", "sk-x"}, env, &stdout, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "HEARTH_SECRET_KEY is required") {
		t.Fatalf("keysets without the secret: %d %s", code, stderr.String())
	}
}
