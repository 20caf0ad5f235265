package main

import (
	"bytes"
	"log/slog"
	"os/exec"
	"strings"
	"testing"
)

// The start-up log says who can reach the server, and where the studio is.
func TestLogListening(t *testing.T) {
	for addr, want := range map[string]string{
		":8080":          "level=WARN msg=\"listening on all network interfaces",
		"0.0.0.0:8080":   "level=WARN msg=\"listening on all network interfaces",
		"[::]:8080":      "level=WARN msg=\"listening on all network interfaces",
		"127.0.0.1:8080": "level=INFO msg=\"listening on this machine only",
		"localhost:9000": "level=INFO msg=\"listening on this machine only",
		"10.0.0.5:8080":  "",
	} {
		var buf bytes.Buffer
		logListening(slog.New(slog.NewTextHandler(&buf, nil)), addr, "http://localhost:8080")
		out := buf.String()
		if want != "" && !strings.Contains(out, want) || want == "" && strings.Contains(out, "listening") {
			t.Errorf("%s: %s", addr, out)
		}
		if !strings.Contains(out, "url=http://localhost:8080/studio/") {
			t.Errorf("%s: no studio url: %s", addr, out)
		}
	}
}

// make run binds 127.0.0.1 unless HEARTH_ADDR says otherwise.
func TestMakeRunBindsLoopback(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not installed")
	}
	for env, want := range map[string]string{"": "127.0.0.1:8080", "HEARTH_ADDR=:9000": ":9000"} {
		cmd := exec.Command("sh", "-c", `eval "$(make -s -n run | sed 's/ [^ ]*go run .*/ sh -c "echo \\$HEARTH_ADDR"/')"`)
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
