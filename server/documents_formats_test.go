package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hearth-dev/hearth/providers/extract"
	"github.com/hearth-dev/hearth/server/app"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestLegacyXLSAndScans: a LibreOffice-made .xls is ingested and found;
// a scanned PDF fails with the reason when no extractor is configured.
func TestLegacyXLSAndScans(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel})
	upload(t, ts, key, "kb", "sheet.xls", "application/vnd.ms-excel", fixture(t, "office/sheet.xls"), nil)
	upload(t, ts, key, "kb", "scan.pdf", "application/pdf", fixture(t, "scanned-image.pdf"), nil)
	waitCompleted(t, ts, key, "kb", "sheet.xls")
	res := retrieve(t, ts, key, map[string]any{"query": "Meadow colonies", "memory": []map[string]any{{"name": "kb"}}, "topK": 1})
	if len(res) != 1 || !strings.Contains(res[0].Text, "hive: Meadow, colonies: 12") {
		t.Errorf("xls: %+v", res)
	}
	d := waitDoc(t, ts, key, "kb", "scan.pdf")
	if d.Status != "failed" || !strings.Contains(statusMessage(d), "PDF has no text layer (scanned?); configure HEARTH_EXTRACTOR_URL") {
		t.Errorf("scan: %s %q", d.Status, statusMessage(d))
	}
}

// TestExternalExtractor: with HEARTH_EXTRACTOR_URL pointing at a fake
// Apache Tika server (kind detected), a scanned PDF is ingested from the
// text Tika answers, through the egress dialer (recorded under
// "extractor"); a readable PDF never reaches it; Tika's refusal fails the
// document naming Tika.
func TestExternalExtractor(t *testing.T) {
	var puts atomic.Int32
	refuse := atomic.Bool{}
	tika := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/tika":
			io.WriteString(w, "This is Tika Server (Apache Tika 2.9.2). Please PUT\n")
		case r.Method == http.MethodPut && r.URL.Path == "/tika" && strings.HasPrefix(r.Header.Get("Accept"), "text/plain"):
			puts.Add(1)
			body, _ := io.ReadAll(r.Body)
			if !strings.HasPrefix(string(body), "%PDF-") || r.Header.Get("Content-Type") != "application/pdf" {
				http.Error(w, "unexpected upload", http.StatusBadRequest)
				return
			}
			if refuse.Load() {
				w.WriteHeader(http.StatusUnprocessableEntity)
				io.WriteString(w, "org.apache.tika.exception.TikaException: TIKA-198: Illegal IOException\n\tat ...\n")
				return
			}
			io.WriteString(w, "\nInvoice 2024-117\nHoney, 12 jars, 96 EUR\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer tika.Close()
	ts := servertest.Start(t, func(c *app.Config) { c.Extractor = extract.Config{URL: tika.URL} })
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel})
	upload(t, ts, key, "kb", "scan.pdf", "application/pdf", fixture(t, "scanned-image.pdf"), nil)
	upload(t, ts, key, "kb", "simple.pdf", "application/pdf", fixture(t, "simple.pdf"), nil)
	waitCompleted(t, ts, key, "kb", "scan.pdf")
	waitCompleted(t, ts, key, "kb", "simple.pdf")
	res := retrieve(t, ts, key, map[string]any{"query": "honey jars invoice", "memory": []map[string]any{{"name": "kb", "filters": []any{"documentName", "Eq", "scan.pdf"}}}, "topK": 1})
	if len(res) != 1 || res[0].Text != "Invoice 2024-117\nHoney, 12 jars, 96 EUR" {
		t.Errorf("scan: %+v", res)
	}
	if n := puts.Load(); n != 1 {
		t.Errorf("%d documents sent to Tika, want only the scan", n)
	}
	resp := ts.Do(http.MethodGet, "/v1/admin/egress", key, nil)
	body := resp.Body
	var rep struct {
		Destinations []struct {
			Feature string `json:"feature"`
		} `json:"destinations"`
	}
	if resp.Status != 200 || json.Unmarshal(body, &rep) != nil {
		t.Fatalf("egress: %d %s", resp.Status, body)
	}
	seen := false
	for _, d := range rep.Destinations {
		seen = seen || d.Feature == "extractor"
	}
	if !seen {
		t.Errorf("no extractor connection in the egress record: %s", body)
	}

	refuse.Store(true)
	upload(t, ts, key, "kb", "scan2.pdf", "application/pdf", fixture(t, "scanned-pagenum.pdf"), nil)
	d := waitDoc(t, ts, key, "kb", "scan2.pdf")
	if want := "external extractor (tika at " + tika.URL + ") failed: HTTP 422 Unprocessable Entity: org.apache.tika.exception.TikaException"; d.Status != "failed" || !strings.Contains(statusMessage(d), want) {
		t.Errorf("refused scan: %s %q, want %q", d.Status, statusMessage(d), want)
	}
}
