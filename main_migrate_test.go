package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/blob/postgres/pgtest"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/app/cli"
	"github.com/hearth-dev/hearth/server/servertest"
	"github.com/jackc/pgx/v5/pgxpool"
)

// TestMigrateToPostgres fills an embedded data dir (pipe, memory with a
// document, thread, keyset), copies it with `hearth migrate -to` into an
// empty PostgreSQL database, and starts a cluster node on it: the node
// answers the same reads and retrieves the document. A second migrate into
// the now non-empty database is refused, and so is `hearth backup` in
// cluster mode.
func TestMigrateToPostgres(t *testing.T) {
	up := fake.NewOpenAI()
	defer up.Close()
	key := servertest.AdminKey
	const zebra = "# Zebras\n\nZebras have black and white stripes."
	dir := t.TempDir()
	src := servertest.StartDir(t, dir, servertest.WithProvider("openai", up.BaseURL(), "sk-server"))
	must := func(s *servertest.Server, method, path string, body any) []byte {
		t.Helper()
		r := s.Do(method, path, key, body)
		if r.Status != 200 {
			t.Fatalf("%s %s: %d %s", method, path, r.Status, r.Body)
		}
		return r.Body
	}
	must(src, "POST", "/v1/memory", map[string]any{"name": "kb", "embedding_model": "openai:text-embedding-3-small"})
	must(src, "POST", "/v1/pipes", map[string]any{"name": "helper", "model": "openai:gpt-4o-mini", "memory": []map[string]string{{"name": "kb"}}})
	var signed struct {
		SignedURL string `json:"signedUrl"`
	}
	json.Unmarshal(must(src, "POST", "/v1/memory/documents", map[string]any{"memoryName": "kb", "fileName": "zebra.md"}), &signed)
	req, _ := http.NewRequest("PUT", signed.SignedURL, strings.NewReader(zebra))
	req.Header.Set("Content-Type", "text/markdown")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("upload: %v %v", resp, err)
	}
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(string(must(src, "GET", "/v1/memory/kb/documents", nil)), `"completed"`); {
		if time.Now().After(deadline) {
			t.Fatalf("document not completed: %s", must(src, "GET", "/v1/memory/kb/documents", nil))
		}
		time.Sleep(20 * time.Millisecond)
	}
	var th struct {
		ID string `json:"id"`
	}
	json.Unmarshal(must(src, "POST", "/v1/threads", map[string]any{"messages": []any{map[string]any{"role": "user", "content": "kept"}}}), &th)
	must(src, "PUT", "/v1/keysets/openai", map[string]any{"key": "sk-owner-key"})
	reads := []string{"/v1/pipes", "/v1/pipes/helper", "/v1/memory", "/v1/memory/kb/documents", "/v1/threads/" + th.ID,
		"/v1/threads/" + th.ID + "/messages", "/v1/keysets", "/v1/keys"}
	retrieve := map[string]any{"query": "zebra stripes", "memory": []map[string]string{{"name": "kb"}}}
	before := map[string]string{}
	for _, p := range reads {
		before[p] = strings.ReplaceAll(string(must(src, "GET", p, nil)), src.URL, "<url>")
	}
	beforeRetrieve := string(must(src, "POST", "/v1/memory/retrieve", retrieve))
	src.Stop()

	url := pgtest.URL(t)
	env := envMap(map[string]string{"HEARTH_SECRET_KEY": hex.EncodeToString(servertest.Config("", "").Secret)})
	var stdout, stderr bytes.Buffer
	if code := cli.Run([]string{"migrate", "-data", dir, "-to", url}, env, &stdout, &stderr); code != 0 {
		t.Fatalf("migrate: exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "HEARTH_DATABASE_URL=") || !strings.Contains(stderr.String(), "1 documents") {
		t.Fatalf("migrate output: %s / %s", stdout.String(), stderr.String())
	}
	stderr.Reset()
	if code := cli.Run([]string{"migrate", "-data", dir, "-to", url}, env, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "empty database") {
		t.Fatalf("second migrate: exit %d: %s", code, stderr.String())
	}
	stderr.Reset()
	clusterEnv := envMap(map[string]string{"HEARTH_DATABASE_URL": url})
	if code := cli.Run([]string{"backup", "-out", t.TempDir() + "/b"}, clusterEnv, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "pg_dump") {
		t.Fatalf("backup in cluster mode: exit %d: %s", code, stderr.String())
	}

	dst := servertest.Start(t, servertest.WithDatabase(url), servertest.WithProvider("openai", up.BaseURL(), "sk-server"))
	for _, p := range reads {
		if got := strings.ReplaceAll(string(must(dst, "GET", p, nil)), dst.URL, "<url>"); got != before[p] {
			t.Errorf("GET %s after migrate:\n got %s\nwant %s", p, got, before[p])
		}
	}
	var blobID string
	pool := dst.Store.(interface{ Pool() *pgxpool.Pool }).Pool()
	if err := pool.QueryRow(context.Background(), `SELECT id FROM hearth_blobs`).Scan(&blobID); err != nil {
		t.Fatalf("one blob after migrate: %v", err)
	}
	if b, err := dst.Store.GetBlob(context.Background(), blobID); err != nil || string(b) != zebra {
		t.Fatalf("blob %s after migrate: %q %v", blobID, b, err)
	}
	var hits []map[string]any
	got := must(dst, "POST", "/v1/memory/retrieve", retrieve)
	json.Unmarshal(got, &hits)
	if len(hits) == 0 || !strings.Contains(string(got), "black and white stripes") {
		t.Errorf("retrieve after migrate: %s (before: %s)", got, beforeRetrieve)
	}
}
