package server_test

import (
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestStorageQuotasAndIngestionMetrics: uploads past the document or byte
// quota are refused with 403 USAGE_EXCEEDED at step 1 or 2, deleting frees
// the room, replacing a document does not count it twice; the bytes count
// each document's upload and its chunk texts (one chunk each here, the
// upload less its trailing space); ingestion outcomes and index sizes
// show in the metrics.
func TestStorageQuotasAndIngestionMetrics(t *testing.T) {
	var quotas *engine.Quotas
	ts := servertest.Start(t, servertest.WithMemory(func(c *memory.Config) {
		quotas = engine.NewQuotas(c.Store, 2, 180)
		c.Quotas = quotas
	}))
	createMemory(t, ts, admin, map[string]any{"name": "docs", "embedding_model": hashModel})
	upload(t, ts, admin, "docs", "a.txt", "text/plain", []byte(strings.Repeat("alpha ", 10)), nil) // 60 + 59 bytes
	waitCompleted(t, ts, admin, "docs", "a.txt")

	// 119 + 70 bytes is past the byte quota: refused at step 2.
	status, out := put(t, signedURL(t, ts, admin, "docs", "b.txt", nil), admin, "text/plain", []byte(strings.Repeat("b", 70)))
	if status != 403 || !strings.Contains(errCode(out), "USAGE_EXCEEDED") {
		t.Fatalf("over the byte quota: %d %v", status, out)
	}
	upload(t, ts, admin, "docs", "b.txt", "text/plain", []byte(strings.Repeat("beta ", 4)), nil) // 20 + 19 bytes
	waitCompleted(t, ts, admin, "docs", "b.txt")
	// Two documents: a third is refused at step 1, a replacement is not.
	r := ts.Do("POST", "/v1/memory/documents", admin, map[string]any{"memoryName": "docs", "fileName": "c.txt"})
	var e apiErr
	r.JSON(t, &e)
	if r.Status != 403 || e.Error.Code != "USAGE_EXCEEDED" || !strings.Contains(e.Error.Message, "2 of 2 documents") {
		t.Fatalf("third document: %d %s", r.Status, r.Body)
	}
	upload(t, ts, admin, "docs", "b.txt", "text/plain", []byte(strings.Repeat("gamma ", 5)), nil) // 30 + 29 bytes replace 20 + 19
	waitCompleted(t, ts, admin, "docs", "b.txt")
	if u, _ := quotas.Usage(t.Context(), "admin"); u != (engine.StorageUsage{Documents: 2, Bytes: 178}) {
		t.Fatalf("usage after replace %+v", u)
	}
	mustStatus(t, ts.Do("DELETE", "/v1/memory/docs/documents/a.txt", admin, nil), 200)
	upload(t, ts, admin, "docs", "c.txt", "text/plain", []byte("charlie"), nil)
	waitCompleted(t, ts, admin, "docs", "c.txt")
	if u, _ := quotas.Usage(t.Context(), "admin"); u != (engine.StorageUsage{Documents: 2, Bytes: 73}) {
		t.Fatalf("usage after delete and upload %+v", u)
	}
	m := string(ts.Do("GET", "/metrics", admin, nil).Body)
	for _, want := range []string{
		`hearth_ingestion_jobs_total{outcome="completed"} 4`,
		`hearth_ingestion_queue_jobs{state="queued"} 0`,
		`hearth_index_memories 1`,
		`hearth_upstream_requests_total{code="ok",kind="embed",provider="hearth"}`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	// Deleting the memory releases what is left.
	mustStatus(t, ts.Do("DELETE", "/v1/memory/docs", admin, nil), 200)
	if u, _ := quotas.Usage(t.Context(), "admin"); u != (engine.StorageUsage{}) {
		t.Fatalf("usage after memory delete %+v", u)
	}
}

func errCode(out map[string]any) string {
	if e, ok := out["error"].(map[string]any); ok {
		c, _ := e["code"].(string)
		return c
	}
	return ""
}
