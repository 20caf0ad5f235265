package apply_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine/chunk"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/server/app/apply"
	"github.com/hearth-dev/hearth/server/servertest"
)

const chunkedGuide = "# Guide\n\nIntro text about the guide.\n\n## Install\n\nCopy the grawlix binary onto the host.\n\n## Configure\n\nEdit the settings file.\n"

// writeChunked declares memory kb with the given chunking block (YAML,
// "" for none) and one markdown document.
func writeChunked(t *testing.T, dir, chunking string) {
	t.Helper()
	spec := "memories:\n  - name: kb\n    embedding_model: 'hearth:hash-embed'\n    chunk_size: 500\n    chunk_overlap: 0\n"
	if chunking != "" {
		spec += "    chunking: " + chunking + "\n"
	}
	spec += "    documents: [{path: guide.md}]\n"
	if err := os.WriteFile(filepath.Join(dir, "m.yaml"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "guide.md"), []byte(chunkedGuide), 0o644); err != nil {
		t.Fatal(err)
	}
}

func plan(t *testing.T, ts *servertest.Server, dir string) *apply.Plan {
	t.Helper()
	spec, err := apply.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := apply.Build(context.Background(), apply.ServicesOf(ts.App, func(k string) string { return env[k] }), spec, apply.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestApplyChunking: a declared memory gets its chunking and its documents
// are cut with it; a changed chunking is planned (document re-uploads,
// then the memory) and applied in place; an undeclared chunking is left
// alone.
func TestApplyChunking(t *testing.T) {
	ts := servertest.Start(t)
	ctx := context.Background()
	dir := t.TempDir()
	writeChunked(t, dir, "{mode: structure}")
	first := run(t, ts, dir, apply.Options{})
	if got, want := actions(first), []string{"create memory admin/kb", "create document admin/kb/guide.md"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("first plan %v, want %v", got, want)
	}
	m, err := ts.Memory.Get(ctx, "admin", "kb")
	if err != nil || m.Chunking == nil || m.Chunking.Mode != chunk.ModeStructure || m.Chunking.Parent != nil {
		t.Fatalf("applied memory: %+v %v", m, err)
	}
	res, err := ts.Memory.Retrieve(ctx, "admin", memory.RetrieveRequest{Query: "grawlix binary", Memories: []memory.MemoryQuery{{Name: "kb"}}, TopK: 1})
	if err != nil || len(res) != 1 || res[0].Heading != "Guide > Install" || res[0].Section != "" {
		t.Fatalf("structure-chunked document: %+v %v", res, err)
	}
	if again := run(t, ts, dir, apply.Options{}); len(again.Changes) != 0 {
		t.Fatalf("second apply changed: %v", actions(again))
	}

	writeChunked(t, dir, "{mode: structure, parent: {max_size: 4000}}")
	p := plan(t, ts, dir)
	if got, want := actions(p), []string{"update document admin/kb/guide.md", "update memory admin/kb"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("changed chunking plan %v, want %v", got, want)
	}
	if d := p.Changes[1].Detail; d != "chunking structure, parent max_size 4000" {
		t.Fatalf("memory change detail %q", d)
	}
	if m, _ := ts.Memory.Get(ctx, "admin", "kb"); m.Chunking.Parent != nil {
		t.Fatal("building a plan changed the memory")
	}
	run(t, ts, dir, apply.Options{})
	m, _ = ts.Memory.Get(ctx, "admin", "kb")
	if m.Chunking == nil || m.Chunking.ParentSize() != 4000 {
		t.Fatalf("changed chunking not applied: %+v", m.Chunking)
	}
	res, err = ts.Memory.Retrieve(ctx, "admin", memory.RetrieveRequest{Query: "grawlix binary", Memories: []memory.MemoryQuery{{Name: "kb"}}, TopK: 1})
	if err != nil || len(res) != 1 || !strings.Contains(res[0].Section, "## Install") {
		t.Fatalf("document re-cut in parent-child mode: %+v %v", res, err)
	}
	if again := run(t, ts, dir, apply.Options{}); len(again.Changes) != 0 {
		t.Fatalf("apply after the change changed: %v", actions(again))
	}

	writeChunked(t, dir, "")
	if p := plan(t, ts, dir); len(p.Changes) != 0 {
		t.Fatalf("undeclared chunking is not managed: %v", actions(p))
	}
	writeChunked(t, dir, "{mode: sentences}")
	spec, _ := apply.Load(dir)
	if _, err := apply.Build(ctx, apply.ServicesOf(ts.App, nil), spec, apply.Options{}); err == nil || !strings.Contains(err.Error(), "chunking.mode") {
		t.Fatalf("bad chunking: %v", err)
	}
}
