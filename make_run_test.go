package main

import (
	"bytes"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// make run binds 127.0.0.1 unless HEARTH_ADDR says otherwise.
func TestMakeRunBindsLoopback(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not installed")
	}
	// Run the recipe's serve line with the binary replaced by an echo of
	// the address it would get.
	for env, want := range map[string]string{"": "127.0.0.1:8080", "HEARTH_ADDR=:9000": ":9000"} {
		cmd := exec.Command("sh", "-c", `eval "$(make -s -n run | grep 'bin/hearth serve' | sed 's|exec bin/hearth serve|sh -c "echo \\$HEARTH_ADDR"|')"`)
		cmd.Env = append(cmd.Environ(), "HEARTH_ADDR=")
		if env != "" {
			cmd.Env = append(cmd.Env, env)
		}
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != want {
			t.Errorf("%q: make run would listen on %q (%v), want %q", env, out, err, want)
		}
	}
}

// Ctrl-C on make run (SIGINT to the whole process group, as a terminal
// sends it) stops the server cleanly, and make reports no error.
func TestMakeRunInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not installed")
	}
	addr := freeAddr(t)
	cmd := exec.Command("make", "run")
	cmd.Env = append(cmd.Environ(), "HEARTH_ADDR="+addr, "HEARTH_DATA="+t.TempDir(), "HEARTH_ADMIN_KEY=make-run-test-admin-key-01",
		"HEARTH_OPENAI_API_KEY=", "HEARTH_LOG_LEVEL=info")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	up := false
	for deadline := time.Now().Add(3 * time.Minute); !up && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/health"); err == nil {
			resp.Body.Close()
			up = resp.StatusCode == 200
		}
	}
	if !up {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Fatalf("make run did not serve:\n%s", out.String())
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
	select {
	case err := <-done:
		// make itself got the SIGINT too and may end by it, silently.
		interrupted := err != nil && strings.Contains(err.Error(), "signal: interrupt")
		if (err != nil && !interrupted) || !strings.Contains(out.String(), "stopped cleanly") || strings.Contains(out.String(), "make: ***") {
			t.Fatalf("make run after Ctrl-C: %v\n%s", err, out.String())
		}
	case <-time.After(time.Minute):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Fatalf("make run did not stop on SIGINT:\n%s", out.String())
	}
}
