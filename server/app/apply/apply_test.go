package apply_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/server/app/apply"
	"github.com/hearth-dev/hearth/server/servertest"
)

func TestMain(m *testing.M) { servertest.Main(m) }

var env = map[string]string{"APPLY_TEST_OPENAI_KEY": "sk-openai-from-env-0001"}

// copyDecl copies testdata/decl to a temp dir the test may change.
func copyDecl(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk("testdata/decl", func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel("testdata/decl", p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755)
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// run loads dir, plans against ts and applies; it waits for ingestion.
func run(t *testing.T, ts *servertest.Server, dir string, opts apply.Options) *apply.Plan {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	spec, err := apply.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	svc := apply.ServicesOf(ts.App, func(k string) string { return env[k] })
	plan, err := apply.Build(ctx, svc, spec, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	if err := apply.Wait(ctx, svc, spec, plan.Admin); err != nil {
		t.Fatal(err)
	}
	return plan
}

func actions(p *apply.Plan) []string {
	var out []string
	for _, c := range p.Changes {
		out = append(out, c.Action+" "+c.Kind+" "+c.Name)
	}
	return out
}

// TestApplyIdempotent: the first apply creates everything through the
// services; the second changes nothing; a changed document is re-ingested
// alone; --prune removes what the files no longer declare.
func TestApplyIdempotent(t *testing.T) {
	ts := servertest.Start(t)
	dir := copyDecl(t)
	first := run(t, ts, dir, apply.Options{})
	want := []string{"create user alice", "create user bob", "create org acme", "update org acme",
		"create keyset alice:openai", "create memory alice/handbook", "create document alice/handbook/zebras.md",
		"create document alice/handbook/billing.txt", "create pipe acme/summarize", "create pipe alice/support",
		"create keyset alice/support:anthropic"}
	if got := actions(first); !reflect.DeepEqual(got, want) {
		t.Fatalf("first plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	ctx := context.Background()
	p, err := ts.App.Deps.Pipes.Get(ctx, "alice", "support")
	if err != nil || p.Temperature != 0.2 || p.MaxTokens != 500 || p.Stream || !strings.Contains(p.SystemPrompt(), "support assistant of {{product}}") {
		t.Fatalf("pipe: %+v %v", p, err)
	}
	if ok, err := ts.Keysets.Holds(ctx, engine.PipeScope(p.ID), "anthropic", "sk-ant-from-file-0001"); !ok || err != nil {
		t.Fatalf("pipe keyset from file: %v %v", ok, err)
	}
	if acme, _ := ts.Accounts.Get(ctx, "acme"); !reflect.DeepEqual(acme.Members, []string{"alice", "bob"}) {
		t.Fatalf("org members: %v", acme.Members)
	}
	_, doc, err := ts.Memory.Document(ctx, "alice", "handbook", "zebras.md")
	if err != nil || doc.Status != memory.StatusCompleted || doc.Current.Meta["topic"] != "animals" {
		t.Fatalf("document: %+v %v", doc, err)
	}

	if again := run(t, ts, dir, apply.Options{}); len(again.Changes) != 0 {
		t.Fatalf("second apply changed: %v", actions(again))
	}
	if vs, err := ts.App.Deps.Pipes.Versions(ctx, "alice", "support"); err != nil || len(vs) != 1 || vs[0].Config.Temperature != 0.2 {
		t.Fatalf("pipe versions after two applies: %+v %v", vs, err)
	}

	os.WriteFile(filepath.Join(dir, "docs", "billing.txt"), []byte("Billing happens on the fifteenth.\n"), 0o644)
	env["APPLY_TEST_OPENAI_KEY"] = "sk-openai-rotated-0002"
	defer func() { env["APPLY_TEST_OPENAI_KEY"] = "sk-openai-from-env-0001" }()
	changed := run(t, ts, dir, apply.Options{})
	if got := actions(changed); !reflect.DeepEqual(got, []string{"update keyset alice:openai", "update document alice/handbook/billing.txt"}) {
		t.Fatalf("changed file plan: %v", got)
	}
	res, err := ts.Memory.Retrieve(ctx, "alice", memory.RetrieveRequest{Query: "when is billing", Memories: []memory.MemoryQuery{{Name: "handbook"}}, TopK: 5})
	if err != nil || !hasText(res, "fifteenth") || hasText(res, "first day") {
		t.Fatalf("re-ingested document: %+v %v", res, err)
	}

	os.Remove(filepath.Join(dir, "pipes.json"))
	os.Remove(filepath.Join(dir, "docs", "zebras.md"))
	spec := strings.Replace(mustRead(t, filepath.Join(dir, "support.yaml")), "      - path: docs/zebras.md\n        meta: {topic: animals}\n", "", 1)
	os.WriteFile(filepath.Join(dir, "support.yaml"), []byte(spec), 0o644)
	noPrune := run(t, ts, dir, apply.Options{})
	if len(noPrune.Changes) != 0 {
		t.Fatalf("without --prune: %v", actions(noPrune))
	}
	pruned := run(t, ts, dir, apply.Options{Prune: true})
	if got := actions(pruned); !reflect.DeepEqual(got, []string{"delete document alice/handbook/zebras.md", "delete pipe acme/summarize"}) {
		t.Fatalf("prune plan: %v", got)
	}
	if _, err := ts.App.Deps.Pipes.Get(ctx, "acme", "summarize"); !engine.IsNotFound(err) {
		t.Fatalf("pruned pipe still there: %v", err)
	}
}

// TestApplyRefusals: inline keys, unknown fields, unset variables and
// in-place memory changes are refused with the file and the field named.
func TestApplyRefusals(t *testing.T) {
	ts := servertest.Start(t)
	svc := apply.ServicesOf(ts.App, func(k string) string { return env[k] })
	for name, c := range map[string]struct{ file, want string }{
		"inline key":     {"keysets: [{provider: openai, key: sk-123}]", "key_env or key_file"},
		"inline api key": {"keys: [{name: ci, key: hth_inline_secret_0001}]", "keys[0].key: keys are never written inline"},
		"api key scope":  {"keys: [{name: ci, key_env: APPLY_TEST_OPENAI_KEY, memories: ['bad name!']}]", "memories[0]"},
		"unknown field":  {"pipes: [{name: p, temprature: 1}]", `unknown field "temprature"`},
		"unset env":      {"keysets: [{provider: openai, key_env: NOPE_NOT_SET}]", "NOPE_NOT_SET is not set"},
		"twice":          {"pipes: [{name: p}, {name: p}]", "declared twice"},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(c.file), 0o644)
		spec, err := apply.Load(dir)
		if err == nil {
			_, err = apply.Build(context.Background(), svc, spec, apply.Options{})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "m.yaml"), []byte("memories: [{name: kb, embedding_model: 'hearth:hash-embed', top_k: 5}]"), 0o644)
	run(t, ts, dir, apply.Options{})
	os.WriteFile(filepath.Join(dir, "m.yaml"), []byte("memories: [{name: kb, embedding_model: 'hearth:hash-embed', top_k: 7}]"), 0o644)
	spec, _ := apply.Load(dir)
	if _, err := apply.Build(context.Background(), svc, spec, apply.Options{}); err == nil || !strings.Contains(err.Error(), "top_k is 5 on the server, 7 in the files") {
		t.Fatalf("memory change: %v", err)
	}
}

// TestExportThenApply: export of one server applied on an empty one
// reproduces its pipes and memories; retrieval answers identically.
func TestExportThenApply(t *testing.T) {
	src := servertest.Start(t)
	run(t, src, copyDecl(t), apply.Options{})
	out := t.TempDir()
	if _, err := apply.Export(context.Background(), apply.ServicesOf(src.App, nil), out); err != nil {
		t.Fatal(err)
	}
	if b := mustRead(t, filepath.Join(out, "hearth.yaml")); strings.Contains(b, "sk-") {
		t.Fatalf("export holds a secret:\n%s", b)
	}
	env["HEARTH_KEY_ALICE_OPENAI"], env["HEARTH_KEY_ALICE_SUPPORT_ANTHROPIC"] = "sk-1", "sk-2"
	dst := servertest.Start(t)
	run(t, dst, out, apply.Options{})
	if again := run(t, dst, out, apply.Options{}); len(again.Changes) != 0 {
		t.Fatalf("export is not a fixed point: %v", actions(again))
	}
	ctx := context.Background()
	for _, owner := range []string{"alice", "acme"} {
		a, _ := src.App.Deps.Pipes.List(ctx, owner)
		b, _ := dst.App.Deps.Pipes.List(ctx, owner)
		if len(a) != len(b) {
			t.Fatalf("%s pipes: %d vs %d", owner, len(a), len(b))
		}
		for i := range a {
			a[i].ID, b[i].ID = "", ""
			a[i].CreatedAt, a[i].UpdatedAt = b[i].CreatedAt, b[i].UpdatedAt
			if !reflect.DeepEqual(a[i], b[i]) {
				t.Fatalf("pipe differs:\n%+v\n%+v", a[i], b[i])
			}
		}
	}
	for _, q := range []string{"zebra stripes", "when are invoices sent", "pattern"} {
		req := memory.RetrieveRequest{Query: q, Memories: []memory.MemoryQuery{{Name: "handbook"}}, TopK: 3}
		a, err1 := src.Memory.Retrieve(ctx, "alice", req)
		b, err2 := dst.Memory.Retrieve(ctx, "alice", req)
		for i := range a {
			if i < len(b) {
				a[i].ChunkID, b[i].ChunkID = "", "" // ids are random per ingestion
			}
		}
		if err1 != nil || err2 != nil || len(a) == 0 || !reflect.DeepEqual(a, b) {
			t.Fatalf("%q: %+v %v\nvs %+v %v", q, a, err1, b, err2)
		}
	}
}

func hasText(res []memory.Result, s string) bool {
	for _, r := range res {
		if strings.Contains(r.Text, s) {
			return true
		}
	}
	return false
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
