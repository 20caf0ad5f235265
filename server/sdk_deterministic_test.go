package server_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestSDKDeterministicRuns runs testdata/sdk/deterministic.mjs (the langbase
// SDK: pipe create, run, streamed run, thread messages, thread create,
// agent run) against two servers in deterministic mode and wants
// byte-identical transcripts; a server without the mode gives another one.
func TestSDKDeterministicRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("SDK test skipped in -short mode")
	}
	sdkDir, err := filepath.Abs(filepath.Join("..", "testdata", "sdk"))
	if err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(filepath.Join(sdkDir, "node_modules", "langbase")); err != nil || serr != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node and testdata/sdk/node_modules are needed (npm ci --prefix testdata/sdk)")
		}
		t.Skip("node or testdata/sdk/node_modules missing: run `make sdk-deps`")
	}
	transcript := func(opts ...servertest.Option) []byte {
		opts = append(opts, servertest.WithConfig(func(c *server.Config) { c.PublicURL = "http://hearth.test" }))
		s := servertest.Start(t, opts...)
		cmd := exec.Command(node, "deterministic.mjs")
		cmd.Dir = sdkDir
		cmd.Env = append(os.Environ(), "HEARTH_URL="+s.URL, "HEARTH_KEY="+servertest.AdminKey)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("node deterministic.mjs: %v\n%s", err, stderr.Bytes())
		}
		return out
	}
	a := transcript(servertest.WithDeterministic())
	b := transcript(servertest.WithDeterministic())
	if !bytes.Equal(a, b) {
		t.Fatalf("two deterministic SDK runs differ:\n%s\n----\n%s", a, b)
	}
	for _, want := range []string{`"api_key": "hth_pipe_`, `"threadId": "`, `"created": 1735689`, `"created_at": 1735689`} {
		if !bytes.Contains(a, []byte(want)) {
			t.Errorf("transcript lacks %s:\n%s", want, a)
		}
	}
	if c := transcript(); bytes.Equal(a, c) {
		t.Fatalf("a run without deterministic mode gave the same transcript:\n%s", c)
	}
}
