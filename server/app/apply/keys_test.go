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

const keysDecl = `users: [{login: alice}]
pipes:
  - {owner: alice, name: support, model: 'hearth:echo'}
  - {owner: alice, name: other, model: 'hearth:echo'}
keys:
  - owner: alice
    name: ci
    key_env: APPLY_TEST_CI_KEY
    pipes: [support]
    read_only: true
`

// runPipe runs an owner's pipe with key and returns the status.
func runPipe(ts *servertest.Server, key, pipe string) int {
	return ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": pipe,
		"messages": []map[string]string{{"role": "user", "content": "hi"}}}).Status
}

func keyActions(p *apply.Plan) []string {
	var out []string
	for _, a := range actions(p) {
		if strings.HasSuffix(strings.Fields(a)[1], "key") {
			out = append(out, a)
		}
	}
	return out
}

// TestApplyKeys: a declared scoped key is created with its secret from
// the environment and works over HTTP within its scope only; applying
// again changes nothing; a scope or secret change revokes and re-creates
// it; --prune revokes it once undeclared and leaves hand-made keys alone.
func TestApplyKeys(t *testing.T) {
	ts := servertest.Start(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "keys.yaml")
	os.WriteFile(file, []byte(keysDecl), 0o644)
	env["APPLY_TEST_CI_KEY"] = "hth_ci_declared_secret_0001"
	defer delete(env, "APPLY_TEST_CI_KEY")
	ctx := context.Background()

	if got := keyActions(run(t, ts, dir, apply.Options{})); !reflect.DeepEqual(got, []string{"create key alice/ci"}) {
		t.Fatalf("first plan: %v", got)
	}
	_, manual, err := ts.Accounts.CreateKey(ctx, "alice", "manual")
	if err != nil {
		t.Fatal(err)
	}
	secret := env["APPLY_TEST_CI_KEY"]
	if s := runPipe(ts, secret, "support"); s != 200 {
		t.Fatalf("declared key on its pipe: %d", s)
	}
	if s := runPipe(ts, secret, "other"); s != 403 {
		t.Fatalf("declared key outside its scope: %d, want 403", s)
	}
	if r := ts.Do("POST", "/v1/pipes", secret, map[string]any{"name": "new", "model": "hearth:echo"}); r.Status != 403 {
		t.Fatalf("read-only declared key created a pipe: %d %s", r.Status, r.Body)
	}
	if again := run(t, ts, dir, apply.Options{Prune: true}); len(again.Changes) != 0 {
		t.Fatalf("second apply changed: %v", actions(again))
	}

	os.WriteFile(file, []byte(strings.Replace(keysDecl, "pipes: [support]", "pipes: [support, other]", 1)), 0o644)
	if got := keyActions(run(t, ts, dir, apply.Options{})); !reflect.DeepEqual(got, []string{"update key alice/ci"}) {
		t.Fatalf("scope change plan: %v", got)
	}
	if s := runPipe(ts, secret, "other"); s != 200 {
		t.Fatalf("widened scope not in force: %d", s)
	}

	env["APPLY_TEST_CI_KEY"] = "hth_ci_declared_secret_0002"
	if got := keyActions(run(t, ts, dir, apply.Options{})); !reflect.DeepEqual(got, []string{"update key alice/ci"}) {
		t.Fatalf("secret change plan: %v", got)
	}
	if s := runPipe(ts, secret, "support"); s != 401 {
		t.Fatalf("old secret after rotation: %d, want 401", s)
	}
	secret = env["APPLY_TEST_CI_KEY"]
	if s := runPipe(ts, secret, "support"); s != 200 {
		t.Fatalf("rotated secret: %d", s)
	}
	keys, _ := ts.Accounts.ListKeys(ctx, "alice")
	live := 0
	for _, k := range keys {
		if k.RevokedAt == nil && strings.HasPrefix(k.Name, apply.ManagedPrefix) {
			live++
		}
	}
	if live != 1 {
		t.Fatalf("live managed keys after two updates: %d, want 1", live)
	}

	os.WriteFile(file, []byte(strings.SplitN(keysDecl, "keys:", 2)[0]), 0o644)
	if got := keyActions(run(t, ts, dir, apply.Options{})); len(got) != 0 {
		t.Fatalf("without --prune: %v", got)
	}
	if got := keyActions(run(t, ts, dir, apply.Options{Prune: true})); !reflect.DeepEqual(got, []string{"delete key alice/ci"}) {
		t.Fatalf("prune plan: %v", got)
	}
	if s := runPipe(ts, secret, "support"); s != 401 {
		t.Fatalf("pruned key still works: %d", s)
	}
	if s := runPipe(ts, manual, "other"); s != 200 {
		t.Fatalf("hand-made key after prune: %d", s)
	}
}

// TestExportThenApplyKeys: export names the declared key's variable and
// its scope, never its secret; applying the export elsewhere recreates a
// key that works and keeps its scope.
func TestExportThenApplyKeys(t *testing.T) {
	src := servertest.Start(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "keys.yaml"), []byte(keysDecl), 0o644)
	env["APPLY_TEST_CI_KEY"] = "hth_ci_declared_secret_0003"
	defer delete(env, "APPLY_TEST_CI_KEY")
	run(t, src, dir, apply.Options{})
	out := t.TempDir()
	spec, err := apply.Export(context.Background(), apply.ServicesOf(src.App, nil), out)
	if err != nil {
		t.Fatal(err)
	}
	b := mustRead(t, filepath.Join(out, "hearth.yaml"))
	if strings.Contains(b, "secret_0003") || len(spec.Keys) != 1 || spec.Keys[0].KeyEnv != "HEARTH_APIKEY_ALICE_CI" ||
		!reflect.DeepEqual(spec.Keys[0].Pipes, []string{"support"}) || !spec.Keys[0].ReadOnly {
		t.Fatalf("exported keys: %+v\n%s", spec.Keys, b)
	}
	env["HEARTH_APIKEY_ALICE_CI"] = "hth_ci_moved_secret_0004"
	defer delete(env, "HEARTH_APIKEY_ALICE_CI")
	dst := servertest.Start(t)
	run(t, dst, out, apply.Options{})
	if again := run(t, dst, out, apply.Options{}); len(again.Changes) != 0 {
		t.Fatalf("export is not a fixed point: %v", actions(again))
	}
	if s := runPipe(dst, "hth_ci_moved_secret_0004", "support"); s != 200 {
		t.Fatalf("moved key: %d", s)
	}
	if s := runPipe(dst, "hth_ci_moved_secret_0004", "other"); s != 403 {
		t.Fatalf("moved key outside its scope: %d, want 403", s)
	}
}
