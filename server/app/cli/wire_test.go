package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

// TestServertestBuildsWhatMainBuilds: hearth serve and the test harness
// wire the application through the same constructor, so they build the
// same services the same way (instrumented providers, images, search,
// crawl and MCP; a Runner with its run log; traces; the sandboxed parser).
func TestServertestBuildsWhatMainBuilds(t *testing.T) {
	a := buildApp(t, testConfig(t, t.TempDir(), ""))
	defer a.Close(t.Context())
	prod, test := a.Describe(), servertest.Start(t).App.Describe()
	if !slices.Equal(prod, test) {
		t.Fatalf("hearth serve built:\n%s\n\nservertest built:\n%s", strings.Join(prod, "\n"), strings.Join(test, "\n"))
	}
	for _, want := range []string{"Runner: *engine.Runner", "Traces: *engine.Traces", "runner: run log",
		"images: instrumented, timeout 1m0s", "providers: instrumented"} {
		if !slices.Contains(prod, want) {
			t.Errorf("description lacks %q:\n%s", want, strings.Join(prod, "\n"))
		}
	}
	for _, line := range prod {
		if strings.HasSuffix(line, ": missing") {
			t.Errorf("hearth serve left a service out: %s", line)
		}
	}
}
