package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// GatewayResult is one row of the gateway table: one kind of run at one
// concurrency, through Hearth and straight to the fake upstream with the
// body Hearth sent it, measured back to back.
type GatewayResult struct {
	Run         string      `json:"run"`
	Concurrency int         `json:"concurrency"`
	Direct      LoadFigures `json:"direct"`
	Hearth      LoadFigures `json:"hearth"`
	// Added figures are Hearth minus direct.
	AddedP50ms      float64 `json:"added_p50_ms"`
	AddedP99ms      float64 `json:"added_p99_ms"`
	AddedTTFTP50ms  float64 `json:"added_ttft_p50_ms,omitempty"`
	AddedAllocsPerR float64 `json:"added_allocs_per_req"`
	AddedBytesPerR  float64 `json:"added_bytes_per_req"`
	AddedCPUusPerR  float64 `json:"added_cpu_us_per_req"`
	// ThreadWritesPerCommit is how many thread writes shared each
	// transaction during the Hearth cell (group commit; 0 when none).
	ThreadWritesPerCommit float64 `json:"thread_writes_per_commit,omitempty"`
	// RunsPerCommit is how many run records shared each run-log
	// transaction during the Hearth cell.
	RunsPerCommit float64 `json:"runs_per_commit,omitempty"`
	// DBStatementsPerReq is how many statements the database ran per
	// Hearth request during the cell (-store postgres with
	// pg_stat_statements; 0 otherwise).
	DBStatementsPerReq float64 `json:"db_statements_per_req,omitempty"`
	// DBTripsPerReq is how many round trips the store's transactions made
	// per Hearth request during the cell (-store postgres; 0 otherwise).
	DBTripsPerReq float64 `json:"db_round_trips_per_req,omitempty"`
	// Peer is the peer gateway's side (HEARTH_BENCH_PEER_URL), when set.
	Peer   *LoadFigures `json:"peer,omitempty"`
	RSSMiB float64      `json:"rss_mib"` // the benchmark process (server, fake and clients) after the Hearth cell
}

// share is f's requests a second over the direct side's (0 without a
// direct figure).
func (r GatewayResult) share(f LoadFigures) float64 {
	if r.Direct.RPS == 0 {
		return 0
	}
	return f.RPS / r.Direct.RPS
}

// LoadFigures is what one side of a cell measured.
type LoadFigures struct {
	Requests    int     `json:"requests"`
	Errors      int     `json:"errors"`
	RPS         float64 `json:"rps"`
	P50ms       float64 `json:"p50_ms"`
	P99ms       float64 `json:"p99_ms"`
	TTFTP50ms   float64 `json:"ttft_p50_ms,omitempty"`
	TTFTP99ms   float64 `json:"ttft_p99_ms,omitempty"`
	AllocsPerR  float64 `json:"allocs_per_req"`
	BytesPerReq float64 `json:"bytes_per_req"`
	// CPUusPerR is the whole process's CPU time (user and system) per
	// request, in microseconds.
	CPUusPerR float64 `json:"cpu_us_per_req"`
}

// gatewayTarget is one request to send over and over.
type gatewayTarget struct {
	url, key string
	header   map[string]string
	body     []byte
	stream   bool
}

// gatewayRun is a kind of run: how to call it through Hearth.
type gatewayRun struct {
	name, path string
	body       map[string]any
	stream     bool
	agent      bool // user key instead of the pipe key
	nostore    bool // the key of the pipe with store off
}

const gatewayReply = "The quick brown fox jumps over the lazy dog while the river runs past the old mill."

// runGateway starts the real server in-process (servertest, loopback) with
// the openai provider pointed at an in-process fake that answers at once,
// and measures each run kind at each concurrency for cell seconds per side.
func runGateway(opts gatewayOptions, logf func(string, ...any)) ([]GatewayResult, []SoakResult, error) {
	f, err := startUpstream(opts.UpstreamAddr)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	logf("gateway: fake upstream at %s (HEARTH_BENCH_UPSTREAM_ADDR fixes it)", f.BaseURL())
	f.SetDefault(fake.Reply{Text: gatewayReply})
	tb := &benchTB{}
	defer tb.close()
	ts, err := startHearth(tb, opts, f.BaseURL())
	if err != nil {
		return nil, nil, err
	}

	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 512, MaxIdleConnsPerHost: 512,
		DisableCompression: true, IdleConnTimeout: time.Minute}}
	defer client.CloseIdleConnections()

	var pipe, nostore struct {
		APIKey string `json:"api_key"`
	}
	for _, p := range []struct {
		name  string
		store bool
		out   *struct {
			APIKey string `json:"api_key"`
		}
	}{{"bench", true, &pipe}, {"bench-nostore", false, &nostore}} {
		r := ts.Do("POST", "/v1/pipes", servertest.AdminKey, map[string]any{
			"name": p.name, "model": "openai:gpt-4o-mini", "store": p.store,
			"messages": []map[string]any{{"role": "system", "content": "You are terse."}}})
		if r.Status != 200 || json.Unmarshal(r.Body, p.out) != nil || p.out.APIKey == "" {
			return nil, nil, fmt.Errorf("create pipe %s: %d %s", p.name, r.Status, r.Body)
		}
	}
	user := []map[string]any{{"role": "user", "content": "Say something about foxes."}}
	runs := []gatewayRun{
		{name: "pipe", path: "/v1/pipes/run", body: map[string]any{"messages": user, "stream": false}},
		{name: "pipe stream", path: "/v1/pipes/run", body: map[string]any{"messages": user, "stream": true}, stream: true},
		{name: "pipe nostore", path: "/v1/pipes/run", nostore: true, body: map[string]any{"messages": user, "stream": false}},
		{name: "pipe nostore stream", path: "/v1/pipes/run", nostore: true, stream: true,
			body: map[string]any{"messages": user, "stream": true}},
		{name: "agent", path: "/v1/agent/run", agent: true, body: map[string]any{"model": "openai:gpt-4o-mini",
			"instructions": "You are terse.", "input": "Say something about foxes.", "stream": false}},
		{name: "agent stream", path: "/v1/agent/run", agent: true, stream: true, body: map[string]any{"model": "openai:gpt-4o-mini",
			"instructions": "You are terse.", "input": "Say something about foxes.", "stream": true}},
	}
	var out []GatewayResult
	var soaks []SoakResult
	// The clients run under role=bench (profiles.go): so do the transport
	// connections they dial, the first of them in this loop.
	asBench(func() { out, soaks, err = measureGateway(opts, logf, ts, f, client, runs, pipe.APIKey, nostore.APIKey) })
	return out, soaks, err
}

// measureGateway measures each run kind of runs at each concurrency: the
// direct leg, the peer (when set) and Hearth.
func measureGateway(opts gatewayOptions, logf func(string, ...any), ts *servertest.Server, f *fake.Server, client *http.Client,
	runs []gatewayRun, pipeKey, nostoreKey string) (out []GatewayResult, soaks []SoakResult, err error) {
	for _, run := range runs {
		if opts.Runs != nil && !opts.Runs[run.name] {
			continue
		}
		body, _ := json.Marshal(run.body)
		hearth := gatewayTarget{url: ts.URL + run.path, key: pipeKey, body: body, stream: run.stream}
		if run.agent {
			hearth.key = servertest.AdminKey
		} else if run.nostore {
			hearth.key = nostoreKey
		}
		if opts.Soak > 0 {
			soaks = append(soaks, soak(client, hearth, run.name, opts.SoakConc, opts.Soak, opts.SoakHeapProfile, logf))
			continue
		}
		// One call through Hearth with recording on gives the upstream
		// request the direct side replays.
		f.SetRecording(true)
		if _, _, err := hearth.do(client); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", run.name, err)
		}
		up := f.LastRequest()
		f.SetRecording(false)
		direct := gatewayTarget{url: f.URL + up.Path, key: "sk-bench", body: up.Body, stream: run.stream}
		if _, _, err := direct.do(client); err != nil {
			return nil, nil, fmt.Errorf("%s direct: %w", run.name, err)
		}
		for _, c := range opts.Conc {
			res := GatewayResult{Run: run.name, Concurrency: c}
			res.Direct = load(client, direct, c, opts.Cell)
			if opts.Peer.URL != "" {
				peer := load(client, opts.Peer.target(direct), c, opts.Cell)
				res.Peer = &peer
			}
			w0, c0 := ts.App.ThreadWrites.Stats()
			r0, rc0 := ts.App.RunLog.Stats()
			s0, t0 := dbStatements(ts), storeTrips(ts)
			res.Hearth = load(client, hearth, c, opts.Cell)
			if s1 := dbStatements(ts); s0 >= 0 && s1 > s0 && res.Hearth.Requests > 0 {
				res.DBStatementsPerReq = float64(s1-s0) / float64(res.Hearth.Requests)
			}
			if t1 := storeTrips(ts); t0 >= 0 && t1 > t0 && res.Hearth.Requests > 0 {
				res.DBTripsPerReq = float64(t1-t0) / float64(res.Hearth.Requests)
			}
			if w1, c1 := ts.App.ThreadWrites.Stats(); c1 > c0 {
				res.ThreadWritesPerCommit = float64(w1-w0) / float64(c1-c0)
			}
			if r1, rc1 := ts.App.RunLog.Stats(); rc1 > rc0 {
				res.RunsPerCommit = float64(r1-r0) / float64(rc1-rc0)
			}
			res.RSSMiB = rssMiB()
			res.AddedP50ms = res.Hearth.P50ms - res.Direct.P50ms
			res.AddedP99ms = res.Hearth.P99ms - res.Direct.P99ms
			if run.stream {
				res.AddedTTFTP50ms = res.Hearth.TTFTP50ms - res.Direct.TTFTP50ms
			}
			res.AddedAllocsPerR = res.Hearth.AllocsPerR - res.Direct.AllocsPerR
			res.AddedBytesPerR = res.Hearth.BytesPerReq - res.Direct.BytesPerReq
			res.AddedCPUusPerR = res.Hearth.CPUusPerR - res.Direct.CPUusPerR
			logf("gateway %s c=%d: direct %.0f rps p50 %.2f ms, hearth %.0f rps p50 %.2f ms", run.name, c,
				res.Direct.RPS, res.Direct.P50ms, res.Hearth.RPS, res.Hearth.P50ms)
			out = append(out, res)
		}
	}
	return out, soaks, nil
}

// do sends the request once and reads the whole answer. For a stream,
// ttft is the time to the first event carrying answer text.
func (g gatewayTarget) do(client *http.Client) (total, ttft time.Duration, err error) {
	req, err := http.NewRequest("POST", g.url, bytes.NewReader(g.body))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+g.key)
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		return 0, 0, fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	if !g.stream {
		var v map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
			return 0, 0, err
		}
		io.Copy(io.Discard, resp.Body)
		return time.Since(start), 0, nil
	}
	br := bufio.NewReader(resp.Body)
	done := false
	for {
		line, err := br.ReadSlice('\n')
		if ttft == 0 && bytes.HasPrefix(line, []byte("data:")) && bytes.Contains(line, []byte(`"content":"`)) &&
			!bytes.Contains(line, []byte(`"content":""`)) {
			ttft = time.Since(start)
		}
		if bytes.Contains(line, []byte("[DONE]")) {
			done = true
		}
		if err == io.EOF {
			break
		}
		if err != nil && err != bufio.ErrBufferFull {
			return 0, 0, err
		}
	}
	if !done || ttft == 0 {
		return 0, 0, fmt.Errorf("stream ended without text or [DONE]")
	}
	return time.Since(start), ttft, nil
}

// load runs conc clients sending t back to back for d (after a short
// warm-up) and returns latency percentiles, throughput, and the heap
// allocations of the whole process per request.
func load(client *http.Client, t gatewayTarget, conc int, d time.Duration) LoadFigures {
	var wg sync.WaitGroup
	for i := 0; i < conc; i++ {
		wg.Go(func() {
			for j := 0; j < 3; j++ {
				t.do(client)
			}
		})
	}
	wg.Wait()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpuBefore := cpuTime()
	type sample struct{ total, ttft []float64 }
	samples := make([]sample, conc)
	errs := make([]int, conc)
	start := time.Now()
	deadline := start.Add(d)
	for i := 0; i < conc; i++ {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				total, ttft, err := t.do(client)
				if err != nil {
					errs[i]++
					continue
				}
				samples[i].total = append(samples[i].total, ms(total))
				if t.stream {
					samples[i].ttft = append(samples[i].ttft, ms(ttft))
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := time.Duration((cpuTime() - cpuBefore) * float64(time.Second))
	runtime.ReadMemStats(&after)
	var total, ttft []float64
	var fig LoadFigures
	for i := range samples {
		total = append(total, samples[i].total...)
		ttft = append(ttft, samples[i].ttft...)
		fig.Errors += errs[i]
	}
	sort.Float64s(total)
	sort.Float64s(ttft)
	n := len(total) + fig.Errors
	fig.Requests = len(total)
	fig.RPS = float64(len(total)) / elapsed.Seconds()
	fig.P50ms, fig.P99ms = percentile(total, 50), percentile(total, 99)
	if t.stream {
		fig.TTFTP50ms, fig.TTFTP99ms = percentile(ttft, 50), percentile(ttft, 99)
	}
	if n > 0 {
		fig.AllocsPerR = float64(after.Mallocs-before.Mallocs) / float64(n)
		fig.BytesPerReq = float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
		fig.CPUusPerR = float64(cpu.Microseconds()) / float64(n)
	}
	return fig
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// rssMiB is the resident set of this process (VmRSS).
func rssMiB() float64 { return procStatusMiB("VmRSS:") }

// procStatusMiB reads one kB figure of /proc/self/status (0 where there
// is none).
func procStatusMiB(field string) float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, field) {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(l, field)), "%f", &kb)
			return kb / 1024
		}
	}
	return 0
}

func printGateway(w io.Writer, rs []GatewayResult, cellSeconds float64, http1 string) {
	fmt.Fprintf(w, "\nGateway overhead: the real server in-process on loopback vs the same upstream request sent straight to an\n"+
		"in-process fake OpenAI that answers at once; %.1f s per side per row. Share = hearth rps / direct rps; added =\n"+
		"Hearth minus direct; allocs and KB per request are the whole process's heap allocations (client, server, fake)\n"+
		"minus those of the direct side, CPU µs per request the process's user+system CPU time likewise.\n", cellSeconds)
	if http1 == "stdlib" {
		fmt.Fprintln(w, "HTTP/1.1: net/http for the server's requests and the upstream calls (-http1 stdlib), not the lean paths.")
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "run\tconc\tdirect rps\thearth rps\tshare\tdirect p50 ms\thearth p50 ms\tadded p50 ms\tadded p99 ms\tadded TTFT p50 ms\tallocs/req\tKB/req\tCPU µs/req\tthread writes/commit\truns/commit\tdb stmts/req\tdb trips/req\tRSS MiB\terrors\t")
	for _, r := range rs {
		ttft := "-"
		if r.Hearth.TTFTP50ms > 0 {
			ttft = fmt.Sprintf("%.2f", r.AddedTTFTP50ms)
		}
		perCommit := "-"
		if r.ThreadWritesPerCommit > 0 {
			perCommit = fmt.Sprintf("%.1f", r.ThreadWritesPerCommit)
		}
		stmts, trips := "-", "-"
		if r.DBStatementsPerReq > 0 {
			stmts = fmt.Sprintf("%.2f", r.DBStatementsPerReq)
		}
		if r.DBTripsPerReq > 0 {
			trips = fmt.Sprintf("%.2f", r.DBTripsPerReq)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.0f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%s\t%.0f\t%.1f\t%.0f\t%s\t%.1f\t%s\t%s\t%.0f\t%d\t\n", r.Run, r.Concurrency,
			r.Direct.RPS, r.Hearth.RPS, r.share(r.Hearth), r.Direct.P50ms, r.Hearth.P50ms, r.AddedP50ms, r.AddedP99ms, ttft,
			r.AddedAllocsPerR, r.AddedBytesPerR/1024, r.AddedCPUusPerR, perCommit, r.RunsPerCommit, stmts, trips, r.RSSMiB, r.Direct.Errors+r.Hearth.Errors)
	}
	tw.Flush()
	printGoals(w, gatewayGoals(rs), directSpeed(rs))
	printPeer(w, rs)
}
