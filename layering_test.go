package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLayering keeps data flowing one way, server -> engine -> adapters:
// no engine package imports an adapter, the HTTP layer or their libraries
// (engine/memory ranks with engine/rank, not with index); server reaches
// the adapters only through server/app, the composition root.
func TestLayering(t *testing.T) {
	const mod = "github.com/hearth-dev/hearth/"
	adapters := []string{mod + "blob", mod + "index", mod + "providers", mod + "server", mod + "web",
		"github.com/labstack/echo", "github.com/blevesearch/", "github.com/dgraph-io/badger"}
	for _, c := range []struct {
		pkg    string
		banned []string
	}{
		{"./engine/...", adapters},
		{"./server", []string{mod + "blob", mod + "index", mod + "providers"}},
		{"./server/metrics", []string{mod + "blob", mod + "index", mod + "providers"}},
	} {
		out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, c.pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", c.pkg, err, out)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			fields := strings.Fields(line)
			if !strings.HasPrefix(fields[0], mod) || !inPattern(fields[0], c.pkg) {
				continue
			}
			for _, dep := range fields[1:] {
				for _, b := range c.banned {
					if dep == b || strings.HasPrefix(dep, strings.TrimSuffix(b, "/")+"/") || (strings.HasSuffix(b, "/") && strings.HasPrefix(dep, b)) {
						t.Errorf("%s imports %s", fields[0], dep)
					}
				}
			}
		}
	}
}

// inPattern reports whether pkg is matched by a go list pattern of this
// module ("./engine/..." or "./server").
func inPattern(pkg, pattern string) bool {
	p := "github.com/hearth-dev/hearth/" + strings.TrimPrefix(pattern, "./")
	if base, ok := strings.CutSuffix(p, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == p
}
