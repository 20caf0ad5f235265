package config

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/configuration.md from the option table")

// docPath is docs/configuration.md from this package's directory.
const docPath = "../../../docs/configuration.md"

// TestConfigurationDocIsGenerated: docs/configuration.md is exactly what
// the option table renders, so the reference cannot drift from the code.
// Run "make config-docs" (go test -run TestConfigurationDocIsGenerated
// -update) after changing the table.
func TestConfigurationDocIsGenerated(t *testing.T) {
	want := Markdown()
	if *update {
		if err := os.WriteFile(docPath, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("docs/configuration.md differs from the option table: run make config-docs")
	}
}

// TestConfigurationDocNamesEverySetting: the generated reference has a
// group heading per area and a row for every setting of the table.
func TestConfigurationDocNamesEverySetting(t *testing.T) {
	doc := string(Markdown())
	for _, h := range []string{"## Server\n", "## Limits and quotas\n", "## Outbound connections\n", "## Test suites\n"} {
		if !strings.Contains(doc, h) {
			t.Errorf("no heading %q", h)
		}
	}
	for _, o := range Options() {
		if !strings.Contains(doc, "| `"+o.Env+"` |") {
			t.Errorf("docs/configuration.md does not document %s", o.Env)
		}
	}
	if !strings.Contains(doc, "| `HEARTH_MAX_BODY_BYTES` | `-max-body-bytes` | `max_body_bytes` | `8388608` (8 MiB) |") {
		t.Errorf("the max body row lacks its flag, file key or default:\n%s", doc)
	}
}
