package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/providers/mcp/mcptest"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestSDKEndToEnd builds the real hearth binary, starts it against a fake
// OpenAI upstream, and runs the official langbase SDK (1.2.4, pinned in
// testdata/sdk/package-lock.json) against it with `node --test`.
//
// It needs node and testdata/sdk/node_modules (`make sdk-deps`). Without
// them it skips, except under CI (env CI set), where it fails. A run that
// exits 0 fails too when no test ran, a test was skipped or left todo, or
// fewer tests ran than the *.test.mjs files declare.
func TestSDKEndToEnd(t *testing.T) { runSDKSuite(t, 1) }

// runSDKSuite runs the SDK suite against one hearth process on the embedded
// store (nodes 1), or against several nodes in cluster mode on one
// PostgreSQL database behind a round-robin proxy, so consecutive requests of
// one SDK call sequence land on different nodes.
func runSDKSuite(t *testing.T, nodes int) {
	root, sdkDir, node := nodeSuite(t, "SDK", "sdk", "langbase")
	var clusterEnv []string
	if nodes > 1 {
		clusterEnv = []string{"HEARTH_DATABASE_URL=" + servertest.DatabaseURL(t),
			"HEARTH_SECRET_KEY=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"}
	}

	bin := buildHearth(t, root)

	up := fake.NewOpenAI()
	defer up.Close()
	upstream := httptest.NewServer(sdkUpstream(up))
	defer upstream.Close()

	toolEnv, toolNodeEnv := sdkToolFakes(t)
	toolNodeEnv = append(toolNodeEnv, "HEARTH_MCP_URL="+mcptest.Start(t, mcptest.Options{Transport: mcptest.SSE, Path: "/sse"}).URL)
	const adminKey = "hth_user_sdk_e2e_admin_key_000001"
	var lb *httptest.Server
	serverURL := "http://" + freeAddr(t)
	if nodes > 1 {
		lb = httptest.NewUnstartedServer(nil)
		serverURL = "http://" + lb.Listener.Addr().String()
	}
	var logs lockedBuffer
	var stops []func()
	var nodeURLs []string
	for i := 0; i < nodes; i++ {
		addr := strings.TrimPrefix(serverURL, "http://")
		if nodes > 1 {
			addr = freeAddr(t)
		}
		env := append(append(hearthEnv(t, serverURL, adminKey, upstream.URL+"/v1"), toolEnv...), clusterEnv...)
		stop := startHearth(t, bin, addr, env, &logs)
		defer stop()
		stops = append(stops, stop)
		nodeURLs = append(nodeURLs, "http://"+addr)
	}
	if lb != nil {
		lb.Config.Handler = roundRobin(t, nodeURLs)
		lb.Start()
		defer lb.Close()
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	env := append(cleanEnv(), "HEARTH_URL="+serverURL, "HEARTH_KEY="+adminKey, "HEARTH_BIN="+bin, "NO_COLOR=1",
		"SDK_UPSTREAM_URL="+upstream.URL)
	runNodeTests(t, ctx, node, sdkDir, append(env, toolNodeEnv...), func() string {
		for _, stop := range stops {
			stop()
		}
		return logs.String()
	})
}

// runNodeTests runs `node --test` in dir and fails the test unless it
// passed with every declared test run: node exits 0 when no test ran or
// every test was skipped, so its TAP summary is read as well and held
// against the tests the *.test.mjs files declare. onFail stops the servers
// and returns their log for the failure message.
func runNodeTests(t *testing.T, ctx context.Context, node, dir string, env []string, onFail func() string) {
	t.Helper()
	declared, err := declaredNodeTests(dir)
	if err != nil {
		t.Fatal(err)
	}
	tapFile := filepath.Join(t.TempDir(), "node.tap")
	cmd := exec.CommandContext(ctx, node, "--test",
		"--test-reporter=spec", "--test-reporter-destination=stdout",
		"--test-reporter=tap", "--test-reporter-destination="+tapFile)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test failed: %v\n%s\n--- hearth log ---\n%s", err, out, onFail())
	}
	tap, err := os.ReadFile(tapFile)
	if err != nil {
		t.Fatalf("node --test wrote no TAP report: %v\n%s", err, out)
	}
	sum, err := parseNodeTAP(string(tap))
	if err == nil {
		err = sum.check(declared)
	}
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("node --test: %d tests passed (%d declared)\n%s", sum.Pass, declared, lastLines(string(out), 12))
}

// sdkUpstream scripts the fake OpenAI upstream for the SDK tests: a chat
// whose last message is a user message mentioning "weather" calls the
// get_weather tool; one asking to "use the mcp tool" calls the MCP test
// server's echo tool (offered as calc__echo), and the answer to that
// tool's result quotes it; one saying "lag-probe ID" streams in lockstep
// with the client (lagProbes); provider keys other than sk-server-openai
// and sk-llmkey-valid are refused with 401. Requests are served one at a time
// so a scripted reply always goes to the request that asked for it.
func sdkUpstream(up *fake.Server) http.Handler {
	target, _ := url.Parse(up.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1
	var mu sync.Mutex
	lag := &lagProbes{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id, ok := strings.CutPrefix(r.URL.Path, lagReleasePath); ok {
			lag.release(w, id)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		switch auth := r.Header.Get("Authorization"); {
		case auth != "Bearer sk-server-openai" && auth != "Bearer sk-llmkey-valid":
			up.Enqueue(fake.Reply{Status: 401})
		case strings.HasSuffix(r.URL.Path, "/chat/completions"):
			var req struct {
				Messages []struct {
					Role    string `json:"role"`
					Content any    `json:"content"`
				} `json:"messages"`
			}
			json.Unmarshal(body, &req)
			last := ""
			if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == "user" {
				last = strings.ToLower(fmt.Sprint(req.Messages[n-1].Content))
			}
			if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == "tool" {
				if result := fmt.Sprint(req.Messages[n-1].Content); strings.Contains(result, "mcp-e2e") {
					up.Enqueue(fake.Reply{Text: "The MCP tool said: " + result})
				}
			}
			if strings.Contains(last, "use the mcp tool") {
				up.Enqueue(fake.Reply{ToolCalls: []fake.ToolCall{{ID: "call_mcp_1", Name: "calc__echo", Arguments: `{"text":"mcp-e2e-ok"}`}}})
			}
			if id, ok := lagProbeID(last); ok {
				lag.serve(w, r, id)
				return
			}
			if strings.Contains(last, "weather") {
				up.Enqueue(fake.Reply{ToolCalls: []fake.ToolCall{{ID: "call_weather_1", Name: "get_weather", Arguments: `{"location":"Paris"}`}}})
			}
		}
		proxy.ServeHTTP(w, r)
	})
}

// cleanEnv is the test's environment without HEARTH_* settings.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HEARTH_") {
			env = append(env, kv)
		}
	}
	return env
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func waitHealthy(t *testing.T, base string, logs *lockedBuffer) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(base + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("hearth did not become healthy at %s\n%s", base, logs.String())
}

func lastLines(s string, n int) string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// lockedBuffer collects a child process's output safely across goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }
