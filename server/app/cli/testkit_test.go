package cli

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/server/servertest"
)

// runOK runs the hearth command line with args and env, fails the test on
// a non-zero exit and returns what it printed on stdout.
func runOK(t *testing.T, env func(string) string, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := Run(args, env, &out, &errOut); code != 0 {
		t.Fatalf("%v: exit %d: %s%s", args, code, out.String(), errOut.String())
	}
	return out.String()
}

// seedMemory creates the memory of the settings on ts (as the admin) and
// uploads docs (file name to content; .csv as text/csv, the rest as
// markdown) through the public upload flow, waiting until all are ingested.
func seedMemory(t *testing.T, ts *servertest.Server, settings map[string]any, docs map[string][]byte) {
	t.Helper()
	key, mem := servertest.AdminKey, settings["name"].(string)
	if r := ts.Do("POST", "/v1/memory", key, settings); r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	for name, data := range docs {
		ct := "text/markdown"
		if strings.HasSuffix(name, ".csv") {
			ct = "text/csv"
		}
		uploadDocument(t, ts, key, mem, name, ct, data)
	}
	waitIngested(t, ts, key, mem, len(docs))
}

// uploadDocument adds the document name of the given content type to the
// memory mem on ts through the public upload flow (signed URL, then PUT).
func uploadDocument(t *testing.T, ts *servertest.Server, key, mem, name, contentType string, data []byte) {
	t.Helper()
	var up struct {
		SignedURL string `json:"signedUrl"`
	}
	ts.Do("POST", "/v1/memory/documents", key, map[string]any{"memoryName": mem, "fileName": name}).JSON(t, &up)
	req, err := http.NewRequest("PUT", up.SignedURL, bytes.NewReader(data))
	if err != nil {
		t.Fatalf("upload %s: %v", name, err)
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("upload %s: %v %v", name, err, resp)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// waitIngested waits (up to 20s) until n documents of the memory mem on
// ts have completed ingestion.
func waitIngested(t *testing.T, ts *servertest.Server, key, mem string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var docs []struct {
			Status string `json:"status"`
		}
		ts.Do("GET", "/v1/memory/"+mem+"/documents", key, nil).JSON(t, &docs)
		done := 0
		for _, d := range docs {
			if d.Status == "completed" {
				done++
			}
		}
		if done == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("documents not ingested: %+v", docs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
