package cli

import (
	"bytes"
	"log/slog"
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
