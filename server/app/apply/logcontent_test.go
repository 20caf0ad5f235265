package apply_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server/app/apply"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestApplyLogContent: a pipe file's log_content (docs/pipes-and-threads.md#run-log) is
// applied, is a change when it flips, and is exported only when on.
func TestApplyLogContent(t *testing.T) {
	ts := servertest.Start(t)
	dir := t.TempDir()
	write := func(on bool) {
		body := `{"pipes": [{"owner": "admin", "name": "dbg", "model": "hearth:echo", "log_content": true}]}`
		if !on {
			body = strings.Replace(body, `, "log_content": true`, "", 1)
		}
		if err := os.WriteFile(filepath.Join(dir, "pipes.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	write(true)
	run(t, ts, dir, apply.Options{})
	if p, err := ts.App.Deps.Pipes.Get(ctx, "admin", "dbg"); err != nil || !p.LogContent {
		t.Fatalf("applied pipe: %+v %v", p, err)
	}
	if again := run(t, ts, dir, apply.Options{}); len(again.Changes) != 0 {
		t.Fatalf("second apply changed: %v", actions(again))
	}
	out := t.TempDir()
	if _, err := apply.Export(ctx, apply.ServicesOf(ts.App, nil), out); err != nil {
		t.Fatal(err)
	}
	if b := mustRead(t, filepath.Join(out, "hearth.yaml")); !strings.Contains(b, "log_content: true") {
		t.Fatalf("export without log_content:\n%s", b)
	}
	write(false)
	if got := actions(run(t, ts, dir, apply.Options{})); !reflect.DeepEqual(got, []string{"update pipe admin/dbg"}) {
		t.Fatalf("turning log_content off: %v", got)
	}
	if p, _ := ts.App.Deps.Pipes.Get(ctx, "admin", "dbg"); p.LogContent {
		t.Fatal("log_content still on after the file dropped it")
	}
}
