package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/server/app"
)

// TestKeywordSearchAfterCLIRestore: "hearth backup" and "hearth restore"
// carry the store only; the keyword index of a memory is rebuilt from the
// stored chunk texts when the restored server first searches it.
func TestKeywordSearchAfterCLIRestore(t *testing.T) {
	open := func(dir string) *app.App {
		a := buildApp(t, testConfig(t, dir, "restore-test-admin-key-01"))
		return a
	}
	ctx := context.Background()
	dir := t.TempDir()
	a := open(dir)
	if _, err := a.Memory.Create(ctx, "admin", memory.CreateRequest{Name: "kb", EmbeddingModel: memory.KeywordOnlyModel}); err != nil {
		t.Fatal(err)
	}
	ticket, err := a.Memory.CreateUpload(ctx, "admin", "kb", "otters.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Memory.CompleteUpload(ctx, memory.UploadRequest{Token: ticket.Token, ContentType: "text/plain",
		Body: strings.NewReader("Sea otters hold hands while they sleep.")}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; {
		_, d, err := a.Memory.Document(ctx, "admin", "kb", "otters.txt")
		if err == nil && d.Status == memory.StatusCompleted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("document: %+v %v", d, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	a.Close(ctx)

	var msg bytes.Buffer
	file := filepath.Join(t.TempDir(), "b.zst")
	if err := backupCmd([]string{"-data", dir, "-out", file}, envMap(nil), &msg, &msg); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "restored")
	if err := restoreCmd([]string{"-data", target, "-in", file}, envMap(nil), &msg); err != nil {
		t.Fatal(err)
	}
	a = open(target)
	defer a.Close(ctx)
	res, err := a.Memory.Retrieve(ctx, "admin", memory.RetrieveRequest{Query: "otters sleep", Memories: []memory.MemoryQuery{{Name: "kb"}}, TopK: 3})
	if err != nil || len(res) != 1 || !strings.Contains(res[0].Text, "Sea otters") {
		t.Fatalf("after restore: %+v %v", res, err)
	}
}
