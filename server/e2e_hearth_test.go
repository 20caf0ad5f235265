package server_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// nodeSuite finds what an end-to-end suite of node tests in testdata/sub
// needs: the repository root, the suite's directory and node. Without node
// or the npm package pkg installed there it skips, except under CI (env CI
// set), where it fails; in -short mode it skips.
func nodeSuite(t *testing.T, name, sub, pkg string) (root, dir, node string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("%s end-to-end test skipped in -short mode", name)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(root, "testdata", sub)
	need := func(what string) {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s; CI must run the %s end-to-end test (run `npm ci --prefix testdata/%s`)", what, name, sub)
		}
		t.Skipf("%s: run `make sdk-deps` (npm ci --prefix testdata/%s) to enable the %s end-to-end test", what, sub, name)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg)); err != nil {
		need("testdata/" + sub + "/node_modules is missing")
	}
	node, err = exec.LookPath("node")
	if err != nil {
		need("node is not installed")
	}
	return root, dir, node
}

// buildHearth builds the hearth binary of the repository at root.
func buildHearth(t *testing.T, root string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "hearth")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// hearthEnv is the environment of a hearth process for an end-to-end test:
// the test's own without HEARTH_* settings, then the public URL, a fresh
// data directory, the admin key and a fake OpenAI upstream with its key.
func hearthEnv(t *testing.T, publicURL, adminKey, openAIURL string) []string {
	return append(cleanEnv(),
		"HEARTH_PUBLIC_URL="+publicURL,
		"HEARTH_DATA="+t.TempDir(),
		"HEARTH_ADMIN_KEY="+adminKey,
		"HEARTH_OPENAI_BASE_URL="+openAIURL,
		"HEARTH_OPENAI_API_KEY=sk-server-openai",
		"HEARTH_LOG_LEVEL=warn",
	)
}

// startHearth runs `bin serve` listening on addr with env, its output in
// logs, and waits until it is healthy. stop sends SIGTERM and fails the
// test when the process has not stopped 15 s later; it runs once, at the
// latest when the test ends.
func startHearth(t *testing.T, bin, addr string, env []string, logs *lockedBuffer) (stop func()) {
	t.Helper()
	srv := exec.Command(bin, "serve")
	srv.Env = append(env[:len(env):len(env)], "HEARTH_ADDR="+addr)
	srv.Stdout, srv.Stderr = logs, logs
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		srv.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- srv.Wait() }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			srv.Process.Kill()
			<-done
			t.Errorf("hearth did not stop within 15 s after SIGTERM")
		}
	}
	t.Cleanup(stop)
	waitHealthy(t, "http://"+addr, logs)
	return stop
}
