package cli

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/server/app"
	"github.com/hearth-dev/hearth/server/app/config"
)

// TestPDFParsedInChildProcess runs the production wiring: PDFs are parsed
// by "<this executable> internal-parse" under HEARTH_PARSE_TIMEOUT.
func TestPDFParsedInChildProcess(t *testing.T) {
	open := func(timeout string) *app.App {
		cfg, _, err := config.Load("serve", nil, envMap(map[string]string{"HEARTH_DATA": t.TempDir(), "HEARTH_LOG_LEVEL": "error",
			"HEARTH_PARSE_TIMEOUT": timeout}))
		if err != nil || cfg.Validate() != nil {
			t.Fatalf("config: %v %v", err, cfg.Validate())
		}
		a, err := Build(cfg, envMap(nil), cfg.Logger(), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close(context.Background()) })
		return a
	}
	read := func(name string) []byte {
		b, err := os.ReadFile("../../../testdata/docs/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	ctx := context.Background()
	if text, err := open("60s").Memory.Parse(ctx, "application/pdf", "a.pdf", read("multipage.pdf")); err != nil || !strings.Contains(text, "Page three") {
		t.Fatalf("multipage: %q %v", text, err)
	}
	start := time.Now()
	_, err := open("2s").Memory.Parse(ctx, "application/pdf", "a.pdf", read("objstm-hang.pdf"))
	if engine.ErrorCode(err) != engine.CodeBadRequest || !strings.Contains(err.Error(), "parsing timed out after 2s") || time.Since(start) > 20*time.Second {
		t.Fatalf("hanging PDF: %v after %s", err, time.Since(start))
	}
}

// TestParseSubcommand: "hearth internal-parse" is the child; by hand it
// refuses input that is not a request.
func TestParseSubcommand(t *testing.T) {
	var out, errOut strings.Builder
	r, w, _ := os.Pipe()
	w.WriteString("hello\n")
	w.Close()
	stdin, stderr := os.Stdin, os.Stderr
	os.Stdin, os.Stderr = r, nil // Serve explains itself on stderr
	defer func() { os.Stdin, os.Stderr = stdin, stderr }()
	if code := Run([]string{"internal-parse"}, envMap(nil), &out, &errOut); code != 1 || out.Len() != 0 {
		t.Fatalf("exit %d, out %q", code, out.String())
	}
	if strings.Contains(usage(), "internal-parse") {
		t.Fatal("the parser subcommand is not for users: keep it out of the usage")
	}
}
