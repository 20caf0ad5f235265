package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/hearth-dev/hearth/blob/postgres/pgtest"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// ClusterResult is one row of the cluster table: pipes.run and retrieval
// throughput of one setup, the requests spread round robin over its nodes.
type ClusterResult struct {
	Setup       string  `json:"setup"`
	Nodes       int     `json:"nodes"`
	RunRPS      float64 `json:"pipes_run_rps"`
	RunP50ms    float64 `json:"pipes_run_p50_ms"`
	RunP99ms    float64 `json:"pipes_run_p99_ms"`
	RetrRPS     float64 `json:"retrieve_rps"`
	RetrP50ms   float64 `json:"retrieve_p50_ms"`
	RetrP99ms   float64 `json:"retrieve_p99_ms"`
	Errors      int     `json:"errors"`
	Concurrency int     `json:"concurrency"`
	// RunTrips and RetrTrips are the store's round trips to PostgreSQL
	// per request, over all nodes (0 for the embedded store).
	RunTrips  float64 `json:"pipes_run_round_trips,omitempty"`
	RetrTrips float64 `json:"retrieve_round_trips,omitempty"`
}

// nodesTrips sums the store round trips of nodes (-1 when not on
// PostgreSQL).
func nodesTrips(nodes []*servertest.Server) int64 {
	var sum int64
	for _, n := range nodes {
		t := storeTrips(n)
		if t < 0 {
			return -1
		}
		sum += t
	}
	return sum
}

// perReq is the trips from t0 to t1 per request of f (0 when unknown).
func perReq(t0, t1 int64, f LoadFigures) float64 {
	if t0 < 0 || f.Requests == 0 {
		return 0
	}
	return float64(t1-t0) / float64(f.Requests)
}

// ClusterLag is the change-feed lag between two nodes: from a document
// seen completed on node A to the first retrieval hit for it on node B.
type ClusterLag struct {
	Samples int     `json:"samples"`
	P50ms   float64 `json:"p50_ms"`
	P99ms   float64 `json:"p99_ms"`
	PollMs  float64 `json:"poll_ms"`
	// KeySamples keys were revoked through node A; KeyP50ms and KeyP99ms
	// are from the revoke's answer to the first request B refused (B
	// had the key cached), polled every millisecond.
	KeySamples int     `json:"key_samples,omitempty"`
	KeyP50ms   float64 `json:"key_p50_ms,omitempty"`
	KeyP99ms   float64 `json:"key_p99_ms,omitempty"`
}

// clusterPoll is how often the lag probe polls both nodes; it bounds the
// lag figures' precision.
const clusterPoll = 5 * time.Millisecond

// runCluster measures the embedded default, one node and two nodes on one
// PostgreSQL database (a throwaway server started from the installed
// binaries by pgtest), each node a whole application in this process with
// its own connections, feed listener and index replicas. It returns a
// reason instead when PostgreSQL is not installed.
func runCluster(quick bool, cell time.Duration, logf func(string, ...any)) ([]ClusterResult, *ClusterLag, string, error) {
	if pgtest.BinDir() == "" {
		return nil, nil, "no PostgreSQL 15+ binaries in /usr/lib/postgresql/*/bin (apt-get install postgresql)", nil
	}
	tb := &benchTB{}
	defer tb.close()
	pg := pgtest.Shared(tb) // panics (benchTB.Fatal) when it cannot start
	tb.Cleanup(func() { pg.Stop() })
	up := fake.NewOpenAI()
	defer up.Close()
	up.SetDefault(fake.Reply{Text: gatewayReply})
	provider := servertest.WithProvider("openai", up.BaseURL(), "sk-bench")
	docs := 200
	if quick {
		docs = 60
	}
	text := newVocab(7)
	setups := []struct {
		name  string
		nodes func() []*servertest.Server
	}{
		{"embedded (Badger)", func() []*servertest.Server { return []*servertest.Server{servertest.Start(tb, provider)} }},
		{"PostgreSQL, 1 node", func() []*servertest.Server { return servertest.StartNodes(tb, pgtest.URL(tb), 1, provider) }},
		{"PostgreSQL, 2 nodes", func() []*servertest.Server { return servertest.StartNodes(tb, pgtest.URL(tb), 2, provider) }},
	}
	const conc = 8
	var out []ClusterResult
	var lag *ClusterLag
	for _, s := range setups {
		nodes := s.nodes()
		if err := seedCluster(nodes[0], docs, text); err != nil {
			return nil, nil, "", fmt.Errorf("%s: %w", s.name, err)
		}
		for _, n := range nodes[1:] {
			if err := waitFound(n, "kb", clusterToken(docs-1), 30*time.Second); err != nil {
				return nil, nil, "", fmt.Errorf("%s: %w", s.name, err)
			}
		}
		t0 := nodesTrips(nodes)
		run := spreadLoad(nodes, "/v1/pipes/run", map[string]any{"name": "bench", "stream": false,
			"messages": []map[string]string{{"role": "user", "content": "Say something about foxes."}}}, conc, cell)
		t1 := nodesTrips(nodes)
		retr := spreadLoad(nodes, "/v1/memory/retrieve", map[string]any{"query": "fox river " + clusterToken(7),
			"memory": []map[string]string{{"name": "kb"}}}, conc, cell)
		t2 := nodesTrips(nodes)
		r := ClusterResult{Setup: s.name, Nodes: len(nodes), Concurrency: conc,
			RunRPS: run.RPS, RunP50ms: run.P50ms, RunP99ms: run.P99ms, RetrRPS: retr.RPS, RetrP50ms: retr.P50ms, RetrP99ms: retr.P99ms,
			Errors: run.Errors + retr.Errors, RunTrips: perReq(t0, t1, run), RetrTrips: perReq(t1, t2, retr)}
		logf("cluster: %s: pipes.run %.0f/s, retrieve %.0f/s", s.name, r.RunRPS, r.RetrRPS)
		out = append(out, r)
		if len(nodes) == 2 {
			samples := 40
			if quick {
				samples = 10
			}
			var err error
			if lag, err = measureLag(nodes[0], nodes[1], docs, samples, text); err != nil {
				return nil, nil, "", fmt.Errorf("lag: %w", err)
			}
			logf("cluster: change-feed lag p50 %.1f ms, p99 %.1f ms", lag.P50ms, lag.P99ms)
			keys := 4 * samples
			if lag.KeyP50ms, lag.KeyP99ms, err = measureKeyLag(nodes[0], nodes[1], keys); err != nil {
				return nil, nil, "", fmt.Errorf("key lag: %w", err)
			}
			lag.KeySamples = keys
			logf("cluster: revoked key refused on the other node after p50 %.1f ms, p99 %.1f ms", lag.KeyP50ms, lag.KeyP99ms)
		}
		for _, n := range nodes {
			n.Stop()
		}
	}
	return out, lag, "", nil
}

// clusterToken is a word only document i of the bench's memory holds.
func clusterToken(i int) string { return fmt.Sprintf("qx%04dlark", i) }

// doer sends one request to a node: an in-process servertest.Server or a
// hearth serve process (procNode).
type doer interface {
	Do(method, path, key string, body any, headers ...string) *servertest.Response
}

// seedCluster creates the pipe "bench" and the memory "kb" (hash-embed,
// offline) with n documents, and waits until they are completed.
func seedCluster(n doer, docs int, text *vocab) error {
	if r := n.Do("POST", "/v1/pipes", servertest.AdminKey, map[string]any{"name": "bench", "model": "openai:gpt-4o-mini"}); r.Status != 200 {
		return fmt.Errorf("create pipe: %d %s", r.Status, r.Body)
	}
	if r := n.Do("POST", "/v1/memory", servertest.AdminKey, map[string]any{"name": "kb", "embedding_model": "hearth:hash-embed"}); r.Status != 200 {
		return fmt.Errorf("create memory: %d %s", r.Status, r.Body)
	}
	for i := range docs {
		if err := uploadDoc(n, "kb", i, text); err != nil {
			return err
		}
	}
	return waitDone(n, "kb", docs, 2*time.Minute)
}

// uploadDoc uploads doc<i>.txt through the signed URL flow.
func uploadDoc(n doer, memory string, i int, v *vocab) error {
	var step1 struct {
		SignedURL string `json:"signedUrl"`
	}
	r := n.Do("POST", "/v1/memory/documents", servertest.AdminKey, map[string]any{"memoryName": memory, "fileName": fmt.Sprintf("doc%d.txt", i)})
	if r.Status != 200 || json.Unmarshal(r.Body, &step1) != nil {
		return fmt.Errorf("upload %d: %d %s", i, r.Status, r.Body)
	}
	text := fmt.Sprintf("Document %d about the %s. %s", i, clusterToken(i), v.prose(120))
	req, _ := http.NewRequest("PUT", step1.SignedURL, strings.NewReader(text))
	req.Header.Set("Content-Type", "text/plain")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("upload %d: PUT %d", i, resp.StatusCode)
	}
	return nil
}

// waitDone polls until want documents of memory are completed on n.
func waitDone(n doer, memory string, want int, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		var list []struct{ Name, Status string }
		json.Unmarshal(n.Do("GET", "/v1/memory/"+memory+"/documents", servertest.AdminKey, nil).Body, &list)
		done := 0
		for _, d := range list {
			if d.Status == "completed" {
				done++
			}
		}
		if done >= want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d documents completed after %v", done, want, within)
		}
		time.Sleep(clusterPoll)
	}
}

// found reports whether retrieval of token on n returns a chunk holding it.
func found(n *servertest.Server, memory, token string) bool {
	r := n.Do("POST", "/v1/memory/retrieve", servertest.AdminKey, map[string]any{"query": token, "memory": []map[string]string{{"name": memory}}})
	return r.Status == 200 && bytes.Contains(r.Body, []byte(token))
}

func waitFound(n *servertest.Server, memory, token string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for !found(n, memory, token) {
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not found on %s after %v", token, n.URL, within)
		}
		time.Sleep(clusterPoll)
	}
	return nil
}

// measureLag uploads samples documents through a, one at a time, and
// times from the poll that sees each completed on a to the first poll on
// b whose retrieval finds it.
func measureLag(a, b *servertest.Server, from, samples int, text *vocab) (*ClusterLag, error) {
	var lags []float64
	for i := from; i < from+samples; i++ {
		if err := uploadDoc(a, "kb", i, text); err != nil {
			return nil, err
		}
		if err := waitDone(a, "kb", i+1, 30*time.Second); err != nil {
			return nil, err
		}
		done := time.Now()
		if err := waitFound(b, "kb", clusterToken(i), 30*time.Second); err != nil {
			return nil, err
		}
		lags = append(lags, ms(time.Since(done)))
	}
	sort.Float64s(lags)
	return &ClusterLag{Samples: len(lags), P50ms: percentile(lags, 50), P99ms: percentile(lags, 99), PollMs: ms(clusterPoll)}, nil
}

// spreadLoad runs conc clients sending body to path for d, client i to
// node i mod len(nodes), and returns throughput and latency.
func spreadLoad(nodes []*servertest.Server, path string, body map[string]any, conc int, d time.Duration) LoadFigures {
	urls := make([]string, len(nodes))
	for i, n := range nodes {
		urls[i] = n.URL
	}
	return spreadURLs(urls, path, body, conc, d)
}

// spreadURLs is spreadLoad on the nodes' base URLs.
func spreadURLs(urls []string, path string, body map[string]any, conc int, d time.Duration) LoadFigures {
	b, _ := json.Marshal(body)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	defer client.CloseIdleConnections()
	var wg sync.WaitGroup
	lat := make([][]float64, conc)
	errs := make([]int, conc)
	start := time.Now()
	deadline := start.Add(d)
	for i := range conc {
		url := urls[i%len(urls)] + path
		wg.Go(func() {
			for time.Now().Before(deadline) {
				t := time.Now()
				req, _ := http.NewRequest("POST", url, bytes.NewReader(b))
				req.Header.Set("Authorization", "Bearer "+servertest.AdminKey)
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					errs[i]++
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					errs[i]++
					continue
				}
				lat[i] = append(lat[i], ms(time.Since(t)))
			}
		})
	}
	wg.Wait()
	var all []float64
	var fig LoadFigures
	for i := range lat {
		all = append(all, lat[i]...)
		fig.Errors += errs[i]
	}
	sort.Float64s(all)
	fig.Requests = len(all)
	fig.RPS = float64(len(all)) / time.Since(start).Seconds()
	fig.P50ms, fig.P99ms = percentile(all, 50), percentile(all, 99)
	return fig
}

func printCluster(w io.Writer, rep *Report) {
	fmt.Fprintln(w, "\nCluster: the embedded default and cluster mode on one PostgreSQL (a throwaway server on loopback, fsync off),")
	fmt.Fprintf(w, "nodes in this process, each a whole application with its own connections and index replicas; %d clients\n", clusterConc(rep))
	fmt.Fprintln(w, "round robin over the nodes for the cell time each; pipes.run against an instant fake upstream; retrieve = hybrid")
	fmt.Fprintln(w, "top 10 over the memory's documents (hash-embed). Lag = document seen completed on node A -> first retrieval hit on B.")
	if rep.ClusterSkipped != "" {
		fmt.Fprintf(w, "skipped: %s\n", rep.ClusterSkipped)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "setup\tnodes\tpipes.run /s\tp50 ms\tp99 ms\tdb trips/run\tretrieve /s\tp50 ms\tp99 ms\tdb trips/retrieve\terrors\t")
	trips := func(f float64) string {
		if f == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f", f)
	}
	for _, r := range rep.Cluster {
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.1f\t%.1f\t%s\t%.0f\t%.1f\t%.1f\t%s\t%d\t\n", r.Setup, r.Nodes, r.RunRPS, r.RunP50ms, r.RunP99ms,
			trips(r.RunTrips), r.RetrRPS, r.RetrP50ms, r.RetrP99ms, trips(r.RetrTrips), r.Errors)
	}
	tw.Flush()
	if l := rep.ClusterLag; l != nil {
		fmt.Fprintf(w, "change-feed lag between two nodes: p50 %.1f ms, p99 %.1f ms over %d documents (polled every %.0f ms)\n",
			l.P50ms, l.P99ms, l.Samples, l.PollMs)
		if l.KeySamples > 0 {
			fmt.Fprintf(w, "key revoked through node A, first refusal on node B (which had it cached): p50 %.1f ms, p99 %.1f ms over %d keys\n",
				l.KeyP50ms, l.KeyP99ms, l.KeySamples)
		}
	}
}

func clusterConc(rep *Report) int {
	if len(rep.Cluster) > 0 {
		return rep.Cluster[0].Concurrency
	}
	return 0
}
