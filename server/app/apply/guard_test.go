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

// TestApplyGuard: a pipe file's guard policy (docs/guardrails.md) is
// applied, is no change on a second apply, is exported, and is removed
// when the file drops it; a bad policy is refused naming the field.
func TestApplyGuard(t *testing.T) {
	ts := servertest.Start(t)
	dir := t.TempDir()
	const policy = `, "guard": {"input": {"pii": ["email"], "pii_action": "redact"}, "output": {"pii": ["phone"]}}`
	write := func(extra string) {
		body := `{"pipes": [{"owner": "admin", "name": "safe", "model": "hearth:echo"` + extra + `}]}`
		if err := os.WriteFile(filepath.Join(dir, "pipes.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	write(policy)
	run(t, ts, dir, apply.Options{})
	p, err := ts.App.Deps.Pipes.Get(ctx, "admin", "safe")
	if err != nil || p.Guard == nil || p.Guard.Input.PII[0] != "email" || p.Guard.Output.PII[0] != "phone" {
		t.Fatalf("applied pipe: %+v %v", p, err)
	}
	if again := run(t, ts, dir, apply.Options{}); len(again.Changes) != 0 {
		t.Fatalf("second apply changed: %v", actions(again))
	}
	out := t.TempDir()
	if _, err := apply.Export(ctx, apply.ServicesOf(ts.App, nil), out); err != nil {
		t.Fatal(err)
	}
	if b := mustRead(t, filepath.Join(out, "hearth.yaml")); !strings.Contains(b, "guard:") || !strings.Contains(b, "pii_action: redact") {
		t.Fatalf("export without the guard policy:\n%s", b)
	}
	write("")
	if got := actions(run(t, ts, dir, apply.Options{})); !reflect.DeepEqual(got, []string{"update pipe admin/safe"}) {
		t.Fatalf("dropping the guard: %v", got)
	}
	if p, _ := ts.App.Deps.Pipes.Get(ctx, "admin", "safe"); p.Guard != nil {
		t.Fatalf("guard still set after the file dropped it: %+v", p.Guard)
	}
	write(`, "guard": {"output": {"injection": "strip"}}`)
	spec, err := apply.Load(dir)
	if err == nil {
		var plan *apply.Plan
		if plan, err = apply.Build(ctx, apply.ServicesOf(ts.App, nil), spec, apply.Options{}); err == nil {
			err = plan.Apply(ctx)
		}
	}
	if err == nil || !strings.Contains(err.Error(), "guard.output.injection") {
		t.Fatalf("bad policy: %v", err)
	}
}
