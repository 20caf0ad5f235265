package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

// seedPackMemory makes the memory "kb" of two markdown documents on ts
// (offline hash embedder) through the public upload flow.
func seedPackMemory(t *testing.T, ts *servertest.Server) {
	seedMemory(t, ts, map[string]any{"name": "kb", "embedding_model": "hearth:hash-embed", "chunk_size": 100, "chunk_overlap": 10}, map[string][]byte{
		"owls.md": []byte("# Owls\n\nOwls hunt at night with silent flight.\n\n## Eyes\n\nOwls turn their heads because their eyes cannot move."),
		"bees.md": []byte("# Bees\n\nHoney bees dance to show where flowers grow.\n\nA hive has one queen and many workers making honey."),
	})
}

func retrieveJSON(t *testing.T, ts *servertest.Server, mem, query string) []map[string]any {
	t.Helper()
	r := ts.Do("POST", "/v1/memory/retrieve", servertest.AdminKey, map[string]any{"query": query, "memory": []any{map[string]any{"name": mem}}, "topK": 5})
	if r.Status != 200 {
		t.Fatalf("retrieve: %d %s", r.Status, r.Body)
	}
	var out []map[string]any
	r.JSON(t, &out)
	for _, c := range out {
		delete(c, "memoryName")
	}
	return out
}

// TestMemoryPackCommands: hearth memory export and import move a memory
// between two running servers through standard output and input, and
// through files, with the same retrieval on both; errors of the server
// reach the user with their code.
func TestMemoryPackCommands(t *testing.T) {
	src, dst := servertest.Start(t), servertest.Start(t)
	seedPackMemory(t, src)
	key := servertest.AdminKey
	var pack, errOut bytes.Buffer
	if code := Run([]string{"memory", "export", "kb", "--url", src.URL, "--key", key}, envMap(nil), &pack, &errOut); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errOut.String())
	}
	var out bytes.Buffer
	c := cliIO{getenv: envMap(map[string]string{"HEARTH_PUBLIC_URL": dst.URL, "HEARTH_API_KEY": key}), stdin: bytes.NewReader(pack.Bytes()), stdout: &out, stderr: &errOut}
	if code := runAdmin(findCommand(t, "memory import"), []string{"--name", "kb2"}, c); code != 0 || out.String() != "imported memory kb2: 2 documents, "+chunkCount(t, src)+" chunks\n" {
		t.Fatalf("import: exit %d: %q %s", code, out.String(), errOut.String())
	}
	for _, q := range []string{"owls at night", "honey", "queen"} {
		if a, b := retrieveJSON(t, src, "kb", q), retrieveJSON(t, dst, "kb2", q); len(a) == 0 || !reflect.DeepEqual(a, b) {
			t.Fatalf("query %q:\nsource %v\nimport %v", q, a, b)
		}
	}

	file := filepath.Join(t.TempDir(), "kb.hearthpack")
	errOut.Reset()
	if code := Run([]string{"memory", "export", "kb", "--out", file, "--url", src.URL, "--key", key}, envMap(nil), io.Discard, &errOut); code != 0 {
		t.Fatalf("export --out: exit %d: %s", code, errOut.String())
	}
	out.Reset()
	if code := Run([]string{"memory", "import", "--in", file, "--url", dst.URL, "--key", key}, envMap(nil), &out, &errOut); code != 0 || !strings.HasPrefix(out.String(), "imported memory kb:") {
		t.Fatalf("import --in: exit %d: %q %s", code, out.String(), errOut.String())
	}
	errOut.Reset()
	if code := Run([]string{"memory", "import", "--in", file, "--url", dst.URL, "--key", key}, envMap(nil), &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "HTTP 409 CONFLICT") {
		t.Fatalf("import over an existing memory: exit %d: %s", code, errOut.String())
	}
	out.Reset()
	if code := Run([]string{"memory", "import", "--in", file, "--replace", "--url", dst.URL, "--key", key}, envMap(nil), &out, &errOut); code != 0 || !strings.HasPrefix(out.String(), "replaced memory kb:") {
		t.Fatalf("import --replace: exit %d: %q %s", code, out.String(), errOut.String())
	}
	errOut.Reset()
	if code := Run([]string{"memory", "export", "nope", "--url", src.URL, "--key", key}, envMap(nil), io.Discard, &errOut); code != 1 || !strings.Contains(errOut.String(), "HTTP 404") {
		t.Fatalf("export of an unknown memory: exit %d: %s", code, errOut.String())
	}
}

func findCommand(t *testing.T, name string) command {
	t.Helper()
	for _, c := range allCommands() {
		if c.name == name {
			return c
		}
	}
	t.Fatalf("no command %q", name)
	return command{}
}

// chunkCount is the number of chunks of kb's documents on ts.
func chunkCount(t *testing.T, ts *servertest.Server) string {
	t.Helper()
	var list []struct {
		Chunks json.Number `json:"chunks"`
	}
	ts.Do("GET", "/v1/memory/kb/documents", servertest.AdminKey, nil).JSON(t, &list)
	n := 0
	for _, d := range list {
		x, _ := d.Chunks.Int64()
		n += int(x)
	}
	return strconv.Itoa(n)
}
