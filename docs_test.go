package main

import (
	"os"
	"strings"
	"testing"
)

// TestConfigurationDocNamesEverySetting: docs/configuration.md, where the
// guides send readers for the full list, names every HEARTH_* setting
// hearth serve reads, so the reference cannot drift from the code.
func TestConfigurationDocNamesEverySetting(t *testing.T) {
	doc, err := os.ReadFile("docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	cfg := defaultConfig()
	for _, v := range cfg.vars() {
		if !strings.Contains(string(doc), "`"+v.env+"`") {
			t.Errorf("docs/configuration.md does not document %s", v.env)
		}
	}
}
