package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/providers/netguard"
	"github.com/hearth-dev/hearth/server/servertest"
)

// httpIngestCase is the HTTP ingestion workload: generated markdown files
// uploaded by parallel clients through the public two-step upload (the
// langbase SDK's memories.documents.upload) into one memory of a real
// server on loopback, timed from the first upload to the last document
// completed and one retrieval answered.
type httpIngestCase struct {
	Model   string // hearth:hash-embed or hearth:bm25
	Workers int    // 0: the server's default
	Clients int
	Docs    int
	DocSize int
}

// HTTPIngestResult is one row of the HTTP ingestion table. CPUSeconds is
// the process's user+system CPU time over the timed interval (server and
// clients share the process; the clients only send bytes), so CPU s/MB
// compares runs on a loaded machine where wall time does not.
type HTTPIngestResult struct {
	Model      string  `json:"model"`
	Workers    int     `json:"workers"`
	Clients    int     `json:"clients"`
	Docs       int     `json:"docs"`
	MB         float64 `json:"mb"`
	Chunks     int     `json:"chunks"`
	Seconds    float64 `json:"seconds"`
	MBps       float64 `json:"mb_per_s"`
	CPUSeconds float64 `json:"cpu_seconds"`
	CPUPerMB   float64 `json:"cpu_s_per_mb"`
	UploadSecs float64 `json:"upload_seconds"` // until the last PUT answered
	// StoreMB and IndexMB are the data dir's Badger files and the rest
	// (keyword and vector indexes) once the server is closed.
	StoreMB float64 `json:"store_mb"`
	IndexMB float64 `json:"index_mb"`
}

func httpIngestCases(quick bool, workers int) []httpIngestCase {
	docs, size := 80, 500<<10
	if quick {
		docs, size = 24, 256<<10
	}
	var out []httpIngestCase
	for _, model := range []string{"hearth:hash-embed", memory.KeywordOnlyModel} {
		out = append(out, httpIngestCase{Model: model, Workers: workers, Clients: 4, Docs: docs, DocSize: size})
	}
	return out
}

// runHTTPIngest starts a real server (servertest: app.New, loopback HTTP)
// and runs one case against it.
func runHTTPIngest(c httpIngestCase, logf func(string, ...any)) (HTTPIngestResult, error) {
	res := HTTPIngestResult{Model: c.Model, Clients: c.Clients, Docs: c.Docs}
	tb := &benchTB{}
	defer tb.close()
	var opts []servertest.Option
	if c.Workers > 0 {
		opts = append(opts, servertest.WithMemory(func(mc *memory.Config) { mc.Workers = c.Workers }))
	}
	dir := tb.TempDir()
	ts := servertest.StartDir(tb, dir, opts...)
	res.Workers = ts.Memory.Workers()
	tr := netguard.Policy{AllowLoopback: true, Feature: "hearthbench"}.Transport() // the server under test is on loopback
	tr.MaxIdleConnsPerHost, tr.DisableCompression = 16, true
	client := &http.Client{Transport: tr}
	defer client.CloseIdleConnections()
	do := func(method, url string, body []byte, contentType string) ([]byte, error) {
		req, err := http.NewRequest(method, url, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+servertest.AdminKey)
		req.Header.Set("Content-Type", contentType)
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("%s %s: %d %s", method, url, resp.StatusCode, b)
		}
		return b, err
	}
	create, _ := json.Marshal(map[string]any{"name": "kb", "embedding_model": c.Model})
	if _, err := do("POST", ts.URL+"/v1/memory", create, "application/json"); err != nil {
		return res, err
	}
	// The documents are made before the timer starts, under the
	// benchmark's profile label (profiles.go) like the clients below.
	docs := make([][]byte, c.Docs)
	asBench(func() {
		for i := range docs {
			docs[i] = []byte(newVocab(uint64(i + 1)).markdown(c.DocSize))
			res.MB += float64(len(docs[i])) / (1 << 20)
		}
	})
	runtime.GC()
	cpu0, start := cpuTime(), time.Now()
	var next atomic.Int64
	errs := make(chan error, c.Clients)
	var wg sync.WaitGroup
	for w := 0; w < c.Clients; w++ {
		wg.Add(1)
		go asBench(func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < len(docs); i = int(next.Add(1)) - 1 {
				// Step 1 as SDK 1.2.4 sends it (fileName), step 2 the PUT.
				body, _ := json.Marshal(map[string]any{"memoryName": "kb", "fileName": fmt.Sprintf("doc-%03d.md", i)})
				b, err := do("POST", ts.URL+"/v1/memory/documents", body, "application/json")
				var up struct {
					SignedURL string `json:"signedUrl"`
				}
				if err == nil {
					err = json.Unmarshal(b, &up)
				}
				if err == nil {
					_, err = do("PUT", up.SignedURL, docs[i], "text/markdown")
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	res.UploadSecs = time.Since(start).Seconds()
	close(errs)
	if err := <-errs; err != nil {
		return res, err
	}
	for done := false; !done; {
		b, err := do("GET", ts.URL+"/v1/memory/kb/documents", nil, "application/json")
		if err != nil {
			return res, err
		}
		var list []struct {
			Name          string `json:"name"`
			Status        string `json:"status"`
			StatusMessage string `json:"status_message"`
		}
		if err := json.Unmarshal(b, &list); err != nil {
			return res, err
		}
		done = len(list) == c.Docs
		for _, d := range list {
			if d.Status == memory.StatusFailed {
				return res, fmt.Errorf("%s failed: %s", d.Name, d.StatusMessage)
			}
			done = done && d.Status == memory.StatusCompleted
		}
		if !done {
			time.Sleep(20 * time.Millisecond)
		}
	}
	// One retrieval ends the interval: the keyword index may still hold
	// recent texts in memory (index.kwBuffer), and a search writes them.
	q, _ := json.Marshal(map[string]any{"query": newVocab(999).phrase(4), "memory": []map[string]string{{"name": "kb"}}})
	if _, err := do("POST", ts.URL+"/v1/memory/retrieve", q, "application/json"); err != nil {
		return res, err
	}
	res.Seconds, res.CPUSeconds = time.Since(start).Seconds(), cpuTime()-cpu0
	res.MBps, res.CPUPerMB = res.MB/res.Seconds, res.CPUSeconds/res.MB
	_, list, err := ts.Memory.Documents(context.Background(), "admin", "kb")
	if err != nil {
		return res, err
	}
	for _, d := range list {
		res.Chunks += d.Live.Chunks
	}
	ts.Stop()
	store, other, err := dataSizes(dir)
	if err != nil {
		return res, err
	}
	res.StoreMB, res.IndexMB = float64(store)/(1<<20), float64(other)/(1<<20)
	logf("ingest-http %s, %d workers: %.1f MB, %d chunks in %.1f s (%.1f CPU s)", c.Model, res.Workers, res.MB, res.Chunks, res.Seconds, res.CPUSeconds)
	return res, nil
}

func printHTTPIngest(w io.Writer, rs []HTTPIngestResult) {
	fmt.Fprintln(w, "\nIngestion through HTTP: generated markdown uploaded by parallel clients with the SDK's two requests (POST")
	fmt.Fprintln(w, "/v1/memory/documents, PUT signedUrl) to a real server on loopback, one memory, timed from the first upload to")
	fmt.Fprintln(w, "the last document completed and one retrieval answered. CPU s is the process's CPU time over that interval")
	fmt.Fprintln(w, "(compare it on a loaded machine; Bleve merges its segments in the background, partly after it). store MB and")
	fmt.Fprintln(w, "index MB are the closed data dir's Badger files and the rest (keyword and vector indexes).")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "model\tworkers\tclients\tdocs\tMB\tchunks\tupload s\ts\tMB/s\tCPU s\tCPU s/MB\tstore MB\tindex MB\t")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.1f\t%d\t%.1f\t%.1f\t%.2f\t%.1f\t%.3f\t%.1f\t%.1f\t\n", r.Model, r.Workers, r.Clients, r.Docs, r.MB,
			r.Chunks, r.UploadSecs, r.Seconds, r.MBps, r.CPUSeconds, r.CPUPerMB, r.StoreMB, r.IndexMB)
	}
	tw.Flush()
}
