package cli

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/server/app/config"
)

func envMap(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestConfigPrecedence(t *testing.T) {
	file := filepath.Join(t.TempDir(), "hearth.json")
	os.WriteFile(file, []byte(`{"addr":":7000","data":"/from/file","log_level":"warn","max_upload_bytes":5000}`), 0o600)

	cfg, _, err := config.Load("serve", []string{"-config", file}, envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != ":7000" || cfg.Data != "/from/file" || cfg.LogLevel != "warn" || cfg.MaxUploadBytes != 5000 || cfg.LogFormat != "text" {
		t.Fatalf("file: %+v", cfg)
	}
	env := envMap(map[string]string{"HEARTH_CONFIG": file, "HEARTH_ADDR": ":7001", "HEARTH_LOG_LEVEL": "debug"})
	cfg, _, err = config.Load("serve", nil, env)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != ":7001" || cfg.Data != "/from/file" || cfg.LogLevel != "debug" {
		t.Fatalf("env over file: %+v", cfg)
	}
	cfg, _, err = config.Load("serve", []string{"-addr", ":7002", "-max-upload-bytes", "9000"}, env)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != ":7002" || cfg.LogLevel != "debug" || cfg.MaxUploadBytes != 9000 {
		t.Fatalf("flags over env: %+v", cfg)
	}
	cfg, _, _ = config.Load("serve", nil, envMap(nil))
	if cfg.Addr != ":8080" || cfg.Data != "./hearth-data" {
		t.Fatalf("defaults: %+v", cfg)
	}
	if err := cfg.Validate(); err != nil || cfg.PublicURL != "http://localhost:8080" {
		t.Fatalf("derived public url %q, %v", cfg.PublicURL, err)
	}
}

func TestConfigValidation(t *testing.T) {
	cases := map[string]struct {
		env  map[string]string
		want string
	}{
		"bad addr":          {map[string]string{"HEARTH_ADDR": "8080"}, "HEARTH_ADDR"},
		"bad port":          {map[string]string{"HEARTH_ADDR": ":99999"}, "the port 0-65535"},
		"relative url":      {map[string]string{"HEARTH_PUBLIC_URL": "hearth.local"}, "HEARTH_PUBLIC_URL"},
		"bad level":         {map[string]string{"HEARTH_LOG_LEVEL": "loud"}, "HEARTH_LOG_LEVEL"},
		"bad format":        {map[string]string{"HEARTH_LOG_FORMAT": "xml"}, "HEARTH_LOG_FORMAT"},
		"short admin key":   {map[string]string{"HEARTH_ADMIN_KEY": "short"}, "HEARTH_ADMIN_KEY"},
		"tiny upload limit": {map[string]string{"HEARTH_MAX_UPLOAD_BYTES": "10"}, "HEARTH_MAX_UPLOAD_BYTES"},
		"agent steps":       {map[string]string{"HEARTH_AGENT_MAX_STEPS": "0"}, "HEARTH_AGENT_MAX_STEPS"},
		"bad bool":          {map[string]string{"HEARTH_OUTBOUND_ALLOW_PRIVATE": "maybe"}, "HEARTH_OUTBOUND_ALLOW_PRIVATE"},
		"bad cidr":          {map[string]string{"HEARTH_OUTBOUND_ALLOW": "10.0.0.0/8, nope"}, "nope"},
		"bad exa url":       {map[string]string{"HEARTH_EXA_BASE_URL": "api.exa.ai"}, "HEARTH_EXA_BASE_URL"},
		"bad spider url":    {map[string]string{"HEARTH_SPIDER_BASE_URL": "ftp://spider"}, "HEARTH_SPIDER_BASE_URL"},
		"bad firecrawl url": {map[string]string{"HEARTH_FIRECRAWL_BASE_URL": "/v1"}, "HEARTH_FIRECRAWL_BASE_URL"},
	}
	for name, tc := range cases {
		cfg, _, err := config.Load("serve", nil, envMap(tc.env))
		if err == nil {
			err = cfg.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want mention of %s", name, err, tc.want)
		}
	}
	if _, _, err := config.Load("serve", nil, envMap(map[string]string{"HEARTH_MAX_BODY_BYTES": "lots"})); err == nil || !strings.Contains(err.Error(), "HEARTH_MAX_BODY_BYTES") {
		t.Errorf("non-numeric env: %v", err)
	}
	file := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(file, []byte(`{"adress":":1"}`), 0o600)
	if _, _, err := config.Load("serve", []string{"-config", file}, envMap(nil)); err == nil || !strings.Contains(err.Error(), "adress") {
		t.Errorf("unknown file key: %v", err)
	}
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestServeAndGracefulShutdown runs the real wiring, then SIGTERM.
func TestServeAndGracefulShutdown(t *testing.T) {
	dir := t.TempDir()
	addr := freeAddr(t)
	var out, errOut bytes.Buffer
	done := make(chan int, 1)
	env := envMap(map[string]string{"HEARTH_DATA": dir, "HEARTH_ADDR": addr, "HEARTH_LOG_LEVEL": "error"})
	go func() { done <- Run([]string{"serve"}, env, &out, &errOut) }()
	url := "http://" + addr
	var resp *http.Response
	var err error
	for i := 0; i < 100; i++ {
		if resp, err = http.Get(url + "/health"); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("server did not come up: %v %s", err, errOut.String())
	}
	var info struct{ Success bool }
	json.NewDecoder(resp.Body).Decode(&info)
	resp.Body.Close()
	if !info.Success {
		t.Fatal("health not ok")
	}
	if !strings.Contains(out.String(), "hth_user_") {
		t.Fatalf("generated admin key not printed: %q", out.String())
	}
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no shutdown after SIGTERM")
	}
	// The store was closed cleanly: the CLI can open it now.
	var cli bytes.Buffer
	if code := Run([]string{"users", "list", "-data", dir}, envMap(nil), &cli, &cli); code != 0 || !strings.Contains(cli.String(), "admin") {
		t.Fatalf("after shutdown: %d %s", code, cli.String())
	}
}

func TestCLIAccountsAndKeys(t *testing.T) {
	dir := t.TempDir()
	env := envMap(map[string]string{"HEARTH_DATA": dir})
	sh := func(args ...string) (int, string) {
		var b bytes.Buffer
		code := Run(args, env, &b, &b)
		return code, b.String()
	}
	steps := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"users", "create", "alice"}, 0, "created user alice"},
		{[]string{"users", "create", "alice"}, 1, "already taken"},
		{[]string{"users", "create", "Bad Name"}, 1, "not a valid login"},
		{[]string{"orgs", "create", "acme"}, 1, "--owner"},
		{[]string{"orgs", "create", "acme", "--owner", "alice"}, 0, "created organization acme"},
		{[]string{"users", "create", "bob"}, 0, "created user bob"},
		{[]string{"orgs", "add-member", "acme", "bob"}, 0, "added bob to acme"},
		{[]string{"orgs", "add-member", "acme", "nobody"}, 1, "not found"},
		{[]string{"keys", "create", "--org", "acme", "--name", "deploy"}, 0, "hth_org_"},
		{[]string{"keys", "create", "--user", "acme"}, 1, "is a org"},
		{[]string{"keys", "create", "--org", "acme", "--name", "ro", "--read-only", "--pipes", "a, b", "--models", "openai", "--expires", "2099-01-01T00:00:00Z"}, 0, "hth_org_"},
		{[]string{"keys", "create", "--org", "acme", "--expires", "2001-01-01T00:00:00Z"}, 1, "expires_at"},
		{[]string{"keys", "create", "--org", "acme", "--expires", "soon"}, 1, "--expires"},
		{[]string{"keys", "create", "--org", "acme", "--models", "openai:"}, 1, "models[0]"},
		{[]string{"keys", "create", "--org", "acme", "--name", "guarded", "--guard", `{"input":{"pii":["email"],"pii_action":"refuse"}}`}, 0, "hth_org_"},
		{[]string{"keys", "create", "--org", "acme", "--guard", `{"input":{"pii":["ssn"]}}`}, 1, "guard.input.pii[0]"},
		{[]string{"keys", "create", "--org", "acme", "--guard", `{"inputs":{}}`}, 1, "--guard is not a guardrail policy"},
		{[]string{"keys", "list", "--org", "acme"}, 0, "expires=2099-01-01T00:00:00Z models=openai pipes=a,b read_only"},
		{[]string{"keys", "list", "--org", "acme"}, 0, " guard"},
		{[]string{"keys", "create"}, 1, "exactly one"},
		{[]string{"users", "list"}, 0, "[alice bob]"},
		{[]string{"keysets", "set", "--org", "acme", "--provider", "openai", "--key", "sk-cli-secret-4321"}, 0, "…4321"},
		{[]string{"keysets", "list", "--org", "acme"}, 0, "openai"},
		{[]string{"keysets", "remove", "--org", "acme", "--provider", "openai"}, 0, "removed"},
		{[]string{"keysets", "remove", "--org", "acme", "--provider", "openai"}, 1, "not found"},
	}
	for _, s := range steps {
		code, out := sh(s.args...)
		if code != s.code || !strings.Contains(out, s.want) {
			t.Fatalf("%v: exit %d, out %q; want %d and %q", s.args, code, out, s.code, s.want)
		}
	}
	_, out := sh("keys", "list", "--org", "acme")
	fields := strings.Fields(strings.Split(out, "\n")[1])
	if len(fields) < 2 || !strings.HasPrefix(fields[0], "key_") || !strings.Contains(out, "active") {
		t.Fatalf("keys list: %q", out)
	}
	if code, out := sh("keys", "revoke", fields[0]); code != 0 || !strings.Contains(out, "revoked") {
		t.Fatalf("revoke: %d %q", code, out)
	}
	if _, out := sh("keys", "list", "--org", "acme"); !strings.Contains(out, "revoked") {
		t.Fatalf("after revoke: %q", out)
	}
	if code, out := sh("keys", "revoke", "key_nope"); code != 1 || !strings.Contains(out, "not found") {
		t.Fatalf("revoke unknown: %d %q", code, out)
	}
}

func TestCLIRefusesWhileServerHoldsDataDir(t *testing.T) {
	dir := t.TempDir()
	a := buildApp(t, testConfig(t, dir, ""))
	defer a.Close(t.Context())
	var b bytes.Buffer
	code := Run([]string{"users", "create", "carol", "-data", dir}, envMap(nil), &b, &b)
	if code != 1 || !strings.Contains(b.String(), "in use") || !strings.Contains(b.String(), "stop the server") {
		t.Fatalf("%d %q", code, b.String())
	}
}

func TestProviderEnv(t *testing.T) {
	env := envMap(map[string]string{
		"HEARTH_OPENAI_BASE_URL": "http://127.0.0.1:9000/v1", "HEARTH_OPENAI_API_KEY": "sk-server",
		"HEARTH_PROVIDERS": "LocalLLM", "HEARTH_LOCALLLM_BASE_URL": "http://127.0.0.1:9001/v1",
	})
	cfg, _, err := config.Load("serve", nil, env)
	if err != nil {
		t.Fatal(err)
	}
	if pc := cfg.Providers["openai"]; pc.BaseURL != "http://127.0.0.1:9000/v1" || pc.APIKey != "sk-server" {
		t.Fatalf("openai: %+v", pc)
	}
	if pc := cfg.Providers["localllm"]; pc.BaseURL != "http://127.0.0.1:9001/v1" {
		t.Fatalf("extra provider: %+v", cfg.Providers)
	}
	cfg, _, _ = config.Load("serve", nil, envMap(map[string]string{"HEARTH_PROVIDERS": "nourl"}))
	cfg.Data, cfg.Addr = t.TempDir(), "127.0.0.1:0"
	var out bytes.Buffer
	if _, err := Build(cfg, envMap(nil), cfg.Logger(), &out); err == nil || !strings.Contains(err.Error(), "nourl") {
		t.Fatalf("extra provider without URL: %v", err)
	}
}

func TestBackupAndRestore(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(t, dir, "backup-test-admin-key-0001")
	a := buildApp(t, cfg)
	if err := a.Server.Open(); err != nil {
		t.Fatal(err)
	}
	a.Deps.Accounts.CreateUser(t.Context(), "kept")

	var msg bytes.Buffer
	online := filepath.Join(t.TempDir(), "online.zst")
	// The data dir is held by the running server: without -url it explains.
	if err := backupCmd([]string{"-data", dir, "-out", online}, envMap(nil), &msg, &msg); err == nil || !strings.Contains(err.Error(), "-url") {
		t.Fatalf("backup of a live dir without -url: %v", err)
	}
	if err := backupCmd([]string{"-data", dir, "-out", online, "-url", a.Server.URL(), "-key", "wrong-key-wrong-key"}, envMap(nil), &msg, &msg); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("backup with a bad key: %v", err)
	}
	if err := backupCmd([]string{"-data", dir, "-out", online, "-url", a.Server.URL(), "-key", cfg.AdminKey}, envMap(nil), &msg, &msg); err != nil {
		t.Fatalf("online backup: %v", err)
	}
	if err := restoreCmd([]string{"-data", dir, "-in", online}, envMap(nil), &msg); err == nil || !strings.Contains(err.Error(), "live") {
		t.Fatalf("restore into the live dir: %v", err)
	}
	a.Close(t.Context())

	offline := filepath.Join(t.TempDir(), "offline.zst")
	if err := backupCmd([]string{"-data", dir, "-out", offline}, envMap(nil), &msg, &msg); err != nil {
		t.Fatalf("offline backup: %v", err)
	}
	for _, file := range []string{online, offline} {
		target := filepath.Join(t.TempDir(), "restored")
		if err := restoreCmd([]string{"-data", target, "-in", file}, envMap(nil), &msg); err != nil {
			t.Fatalf("restore %s: %v", file, err)
		}
		var list bytes.Buffer
		if code := Run([]string{"users", "list", "-data", target}, envMap(nil), &list, &list); code != 0 || !strings.Contains(list.String(), "kept") {
			t.Fatalf("restored data from %s: %s", file, list.String())
		}
		if err := restoreCmd([]string{"-data", target, "-in", file}, envMap(nil), &msg); err == nil || !strings.Contains(err.Error(), "-force") {
			t.Fatalf("restore over data without -force: %v", err)
		}
		if err := restoreCmd([]string{"-data", target, "-in", file, "-force"}, envMap(nil), &msg); err != nil {
			t.Fatalf("restore -force: %v", err)
		}
	}
}

// TestConfigDump: hearth serve -config-dump prints the effective settings
// after the file, the environment and the flags, with where each came
// from, masks secrets (keys, tokens, URL passwords) and exits 0 without
// opening the data dir.
func TestConfigDump(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "hearth.json")
	os.WriteFile(file, []byte(`{"addr": "127.0.0.1:9001", "log_level": "warn"}`), 0o600)
	data := filepath.Join(dir, "never-created")
	env := envMap(map[string]string{
		"HEARTH_CONFIG": file, "HEARTH_LOG_LEVEL": "debug", "HEARTH_DATA": data,
		"HEARTH_ADMIN_KEY": "admin-key-0123456789-secret", "HEARTH_OPENAI_API_KEY": "sk-live-secret-key",
		"HEARTH_OLLAMA_BASE_URL":  "http://gpu1:11434/v1",
		"HEARTH_METRICS_TOKEN":    "metrics-token-0123456789",
		"HEARTH_DATABASE_URL":     "postgres://hearth:db-pass@db:5432/hearth",
		"HEARTH_EXTRACTOR_URL":    "http://tika:9998",
		"HEARTH_MCP_UPSTREAMS":    `[{"name":"gh","url":"https://mcp.example/","authorization_token":"ghp_secret"}]`,
		"HEARTH_RATE_LIMIT_BURST": "7",
		"HEARTH_METRICS":          "on",
		"HEARTH_SECRET_KEY":       "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
	})
	var out, errOut bytes.Buffer
	if code := Run([]string{"serve", "-config-dump", "-max-body-bytes", "65536"}, env, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	dump := out.String()
	for _, want := range []string{
		"HEARTH_ADDR=127.0.0.1:9001", "# file " + file,
		"HEARTH_LOG_LEVEL=debug", "HEARTH_MAX_BODY_BYTES=65536", "# flag -max-body-bytes",
		"HEARTH_RATE_LIMIT_BURST=7", "HEARTH_PUBLIC_URL=http://127.0.0.1:9001",
		"HEARTH_ADMIN_KEY=********", "HEARTH_OPENAI_API_KEY=********", "HEARTH_METRICS_TOKEN=********",
		"HEARTH_MCP_UPSTREAMS=********", "HEARTH_OLLAMA_BASE_URL=http://gpu1:11434/v1",
		"HEARTH_DATABASE_URL=postgres://hearth:xxxxx@db:5432/hearth", "HEARTH_EXTRACTOR_URL=http://tika:9998",
		"HEARTH_MAX_CONCURRENT=512", "# default", "HEARTH_METRICS=true", "# deprecated: HEARTH_METRICS=on is deprecated: use true", "HEARTH_SECRET_KEY=********", "HEARTH_CONFIG=" + file,
	} {
		if !strings.Contains(dump, want) {
			t.Errorf("dump lacks %q:\n%s", want, dump)
		}
	}
	for _, secret := range []string{"admin-key-0123456789-secret", "sk-live-secret-key", "db-pass", "metrics-token-0123456789", "ghp_secret", "00112233445566778899"} {
		if strings.Contains(dump, secret) {
			t.Errorf("dump shows the secret %q", secret)
		}
	}
	if _, err := os.Stat(data); !os.IsNotExist(err) {
		t.Errorf("-config-dump touched the data dir: %v", err)
	}
	out.Reset()
	errOut.Reset()
	if code := Run([]string{"serve", "-config-dump"}, envMap(map[string]string{"HEARTH_ADDR": "nope", "HEARTH_DATA": data}), &out, &errOut); code != 1 ||
		!strings.Contains(out.String(), "HEARTH_ADDR=nope") || !strings.Contains(errOut.String(), "HEARTH_ADDR") {
		t.Errorf("invalid config: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}
