package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/providers/fake"
)

// TestOpenAIClientEndToEnd builds the real hearth binary and runs the
// official openai npm client (pinned in testdata/openai-client/package-lock.json)
// against /openai/v1 with `node --test`.
//
// It needs node and testdata/openai-client/node_modules (`make sdk-deps`).
// Without them it skips, except under CI (env CI set), where it fails. It
// also fails when node ran no test, skipped one, or ran fewer than the
// test files declare (runNodeTests).
func TestOpenAIClientEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("openai client end-to-end test skipped in -short mode")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "testdata", "openai-client")
	need := func(what string) {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s; CI must run the openai client end-to-end test (run `npm ci --prefix testdata/openai-client`)", what)
		}
		t.Skipf("%s: run `make sdk-deps` to enable the openai client end-to-end test", what)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "openai")); err != nil {
		need("testdata/openai-client/node_modules is missing")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		need("node is not installed")
	}

	bin := filepath.Join(t.TempDir(), "hearth")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	up := fake.NewOpenAI()
	defer up.Close()
	imgs := fake.NewOpenAIImages()
	defer imgs.Close()
	upstream := httptest.NewServer(openAIClientUpstream(up, imgs))
	defer upstream.Close()

	addr := freeAddr(t)
	const adminKey = "hth_user_openai_e2e_admin_key_01"
	serverURL := "http://" + addr
	srv := exec.Command(bin, "serve")
	srv.Env = append(cleanEnv(),
		"HEARTH_ADDR="+addr,
		"HEARTH_PUBLIC_URL="+serverURL,
		"HEARTH_DATA="+t.TempDir(),
		"HEARTH_ADMIN_KEY="+adminKey,
		"HEARTH_OPENAI_BASE_URL="+upstream.URL+"/v1",
		"HEARTH_OPENAI_API_KEY=sk-server-openai",
		"HEARTH_LOG_LEVEL=warn",
		"HEARTH_APPLY_DIR="+filepath.Join(root, "testdata", "openai-client", "apply"),
	)
	var logs lockedBuffer
	srv.Stdout, srv.Stderr = &logs, &logs
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		srv.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- srv.Wait() }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			srv.Process.Kill()
			<-done
		}
	}()
	waitHealthy(t, serverURL, &logs)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	env := append(cleanEnv(), "HEARTH_URL="+serverURL, "HEARTH_KEY="+adminKey, "NO_COLOR=1")
	runNodeTests(t, ctx, node, dir, env, logs.String)
}

// openAIClientUpstream scripts the fake OpenAI upstream: a chat whose
// system prompt carries the memory chunk about cardamom answers with it;
// the model "down-model" fails with 503; image requests go to the fake
// Images API. Requests are served one at a time so a scripted reply goes
// to the request that asked for it.
func openAIClientUpstream(up, imgs *fake.Server) http.Handler {
	chat, _ := url.Parse(up.URL)
	images, _ := url.Parse(imgs.URL)
	toChat, toImages := httputil.NewSingleHostReverseProxy(chat), httputil.NewSingleHostReverseProxy(images)
	toChat.FlushInterval = -1
	var mu sync.Mutex
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if strings.Contains(r.URL.Path, "/images/") {
			toImages.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
		}
		json.Unmarshal(body, &req)
		if req.Model == "down-model" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"error":{"message":"The server is overloaded","type":"server_error"}}`)
			return
		}
		for _, m := range req.Messages {
			if s, _ := m.Content.(string); m.Role == "system" && strings.Contains(s, "cardamom") {
				up.Enqueue(fake.Reply{Text: "The secret ingredient is cardamom."})
				break
			}
		}
		toChat.ServeHTTP(w, r)
	})
}
