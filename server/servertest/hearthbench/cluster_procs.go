package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hearth-dev/hearth/blob/postgres/pgtest"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
	"github.com/jackc/pgx/v5"
)

// ProcsResult is one route of the cluster-procs table: the embedded
// default and one cluster node, each a hearth serve process, measured in
// alternating cells; figures are medians over the rounds.
type ProcsResult struct {
	Route       string    `json:"route"`
	EmbeddedRPS float64   `json:"embedded_rps"`
	EmbeddedP50 float64   `json:"embedded_p50_ms"`
	EmbeddedP99 float64   `json:"embedded_p99_ms"`
	ClusterRPS  float64   `json:"cluster_rps"`
	ClusterP50  float64   `json:"cluster_p50_ms"`
	ClusterP99  float64   `json:"cluster_p99_ms"`
	Ratio       float64   `json:"ratio"`
	Ratios      []float64 `json:"ratios"` // cluster ÷ embedded of each round
	// Statements is what the database ran per request of the cluster node
	// (pg_stat_statements, every statement of the database: the node's
	// reads and writes, BEGIN and COMMIT, its feed reads), -1 when unknown.
	Statements float64 `json:"db_statements_per_request"`
	// Transactions is what the database committed or rolled back per
	// request of the cluster node (pg_stat_database; a statement outside
	// a transaction counts as one), -1 when unknown.
	Transactions float64 `json:"db_transactions_per_request"`
	// EmbeddedCPU, ClusterCPU and DatabaseCPU are CPU milliseconds per
	// request (medians over the rounds) of the embedded process, the
	// cluster node's process and PostgreSQL (its server and backends);
	// -1 when /proc cannot tell.
	EmbeddedCPU float64 `json:"embedded_cpu_ms_per_request"`
	ClusterCPU  float64 `json:"cluster_cpu_ms_per_request"`
	DatabaseCPU float64 `json:"database_cpu_ms_per_request"`
	// EmbeddedRSS and ClusterRSS are the resident memory in MiB of the
	// embedded process and of the cluster node at the end of the route's
	// rounds (a cluster node's heap floor trades memory for collector
	// CPU), -1 when unknown.
	EmbeddedRSS float64 `json:"embedded_rss_mib"`
	ClusterRSS  float64 `json:"cluster_rss_mib"`
	Errors      int     `json:"errors"`
	// Nodes has the cluster side's figures at each node count measured,
	// one node first.
	Nodes []NodesFigures `json:"nodes,omitempty"`
}

// NodesFigures is a route's cluster side with Nodes nodes, the clients
// spread round-robin over them; figures are medians over the rounds.
type NodesFigures struct {
	Nodes int     `json:"nodes"`
	RPS   float64 `json:"rps"`
	P50   float64 `json:"p50_ms"`
	P99   float64 `json:"p99_ms"`
	// Ratio is ÷ the embedded process's req/s, Scale ÷ one cluster
	// node's (Scales: each round's).
	Ratio  float64   `json:"ratio"`
	Scale  float64   `json:"scale"`
	Scales []float64 `json:"scales"`
	// NodeCPU is the CPU milliseconds per request of all the nodes
	// together, DatabaseCPU of PostgreSQL; -1 when unknown.
	NodeCPU     float64 `json:"node_cpu_ms_per_request"`
	DatabaseCPU float64 `json:"database_cpu_ms_per_request"`
	Statements  float64 `json:"db_statements_per_request"`
}

// procsRoute is one request kind the section measures.
type procsRoute struct {
	name, path string
	body       map[string]any
}

func procsRoutes() []procsRoute {
	msgs := []map[string]string{{"role": "user", "content": "Say something about foxes."}}
	return []procsRoute{
		{"pipes.run store: true", "/v1/pipes/run", map[string]any{"name": "bench", "stream": false, "messages": msgs}},
		{"pipes.run store: false", "/v1/pipes/run", map[string]any{"name": "bench-nostore", "stream": false, "messages": msgs}},
		{"agent.run", "/v1/agent/run", map[string]any{"model": "openai:gpt-4o-mini", "instructions": "You are terse.",
			"input": "Say something about foxes.", "stream": false}},
		{"retrieve (200 docs)", "/v1/memory/retrieve", map[string]any{"query": "fox river " + clusterToken(7),
			"memory": []map[string]string{{"name": "kb"}}}},
	}
}

// procNode is a hearth serve process.
type procNode struct {
	URL string
	cmd *exec.Cmd
}

// Do sends one request with key as bearer (errors are status 0).
func (n *procNode) Do(method, path, key string, body any, headers ...string) *servertest.Response {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, n.URL+path, rd)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return &servertest.Response{Body: []byte(err.Error())}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return &servertest.Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

func (n *procNode) stop() {
	n.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { n.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		n.cmd.Process.Kill()
		<-done
	}
}

// startProcArgs starts argv (hearth serve, perhaps after a prefix such
// as nice or taskset) with env added to this process's, and waits until
// it answers.
func startProcArgs(argv []string, dir string, env ...string) (*procNode, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), append([]string{"HEARTH_DATA=" + dir, "HEARTH_ADDR=" + addr,
		"HEARTH_ADMIN_KEY=" + servertest.AdminKey, "HEARTH_LOG_LEVEL=warn"}, env...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	n := &procNode{URL: "http://" + addr, cmd: cmd}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if r := n.Do("GET", "/v1/pipes", servertest.AdminKey, nil); r.Status == 200 {
			return n, nil
		}
		if time.Now().After(deadline) || cmd.ProcessState != nil {
			n.stop()
			return nil, fmt.Errorf("hearth serve did not start: %s", stderr.String())
		}
	}
}

// runClusterProcs runs the embedded default and cluster nodes as separate
// hearth serve processes (built from the working directory, the
// repository's root) on the same machine, seeds both sides alike, then
// measures each route in rounds, rotating which side goes first, so every
// side sees the same load from other work. The cluster side is measured
// with each node count of the layout, the clients spread round-robin over
// the nodes. It returns a reason instead when PostgreSQL is not installed.
func runClusterProcs(quick bool, cell time.Duration, rounds, conc int, lay procsLayout, only func(string) bool, top int, logf func(string, ...any)) ([]ProcsResult, string, error) {
	if pgtest.BinDir() == "" {
		return nil, "no PostgreSQL 15+ binaries in /usr/lib/postgresql/*/bin (apt-get install postgresql)", nil
	}
	tmp, err := os.MkdirTemp("", "hearthbench-procs-")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(tmp)
	bin, err := buildHearth(tmp)
	if err != nil {
		return nil, "", err
	}
	tb := &benchTB{}
	defer tb.close()
	pg := pgtest.Shared(tb)
	tb.Cleanup(func() { pg.Stop() })
	url := pgtest.URL(tb)
	if lay.Pinned {
		all := cpuList(0, runtime.NumCPU())
		if err := pinPids(lay.DB, ownPostgresPids()...); err != nil {
			return nil, "", err
		}
		if err := pinPids(lay.Clients, os.Getpid()); err != nil {
			return nil, "", err
		}
		defer func() {
			pinPids(all, os.Getpid())
			pinPids(all, ownPostgresPids()...)
		}()
	}
	argv := func(i int) []string {
		if lay.Pinned {
			return []string{"taskset", "-c", lay.Nodes[i], bin, "serve"}
		}
		return []string{bin, "serve"}
	}
	up := fake.NewOpenAI()
	defer up.Close()
	up.SetRecording(false)
	up.SetDefault(fake.Reply{Text: gatewayReply})
	provider := []string{"HEARTH_OPENAI_BASE_URL=" + up.BaseURL(), "HEARTH_OPENAI_API_KEY=sk-bench"}
	emb, err := startProcArgs(argv(0), filepath.Join(tmp, "embedded"), provider...)
	if err != nil {
		return nil, "", fmt.Errorf("embedded: %w", err)
	}
	defer emb.stop()
	var nodes []*procNode
	defer func() {
		for _, n := range nodes {
			n.stop()
		}
	}()
	for i := range lay.Counts[len(lay.Counts)-1] {
		n, err := startProcArgs(argv(i), filepath.Join(tmp, fmt.Sprintf("cluster%d", i+1)), append(provider, "HEARTH_DATABASE_URL="+url,
			"HEARTH_SECRET_KEY=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff")...)
		if err != nil {
			return nil, "", fmt.Errorf("cluster node %d: %w", i+1, err)
		}
		nodes = append(nodes, n)
	}
	docs := 200
	if quick {
		docs = 60
	}
	// The nodes share one database: seeding the first seeds them all.
	for _, n := range []*procNode{emb, nodes[0]} {
		if err := seedCluster(n, docs, newVocab(7)); err != nil {
			return nil, "", err
		}
		if r := n.Do("POST", "/v1/pipes", servertest.AdminKey, map[string]any{"name": "bench-nostore",
			"model": "openai:gpt-4o-mini", "store": false}); r.Status != 200 {
			return nil, "", fmt.Errorf("create pipe: %d %s", r.Status, r.Body)
		}
	}
	urls := func(n int) []string {
		var out []string
		for _, x := range nodes[:n] {
			out = append(out, x.URL)
		}
		return out
	}
	cpuOf := func(ps ...*procNode) float64 {
		sum := 0.0
		for _, p := range ps {
			c := procCPU(p.cmd.Process.Pid)
			if c < 0 {
				return -1
			}
			sum += c
		}
		return sum
	}
	// perReqMs is CPU milliseconds per request between two readings.
	perReqMs := func(c0, c1 float64, f LoadFigures) float64 {
		if c0 < 0 || c1 < 0 || f.Requests == 0 {
			return -1
		}
		return 1000 * (c1 - c0) / float64(f.Requests)
	}
	// side is what one side (the embedded process, or k cluster nodes)
	// measured in the rounds of a route.
	type side struct {
		figs            []LoadFigures
		st, xs, cpu, db []float64
	}
	var out []ProcsResult
	for _, rt := range procsRoutes() {
		if !only(rt.name) {
			continue
		}
		// A short cell each, not counted, warms every process up.
		spreadURLs([]string{emb.URL}, rt.path, rt.body, conc, cell/4)
		spreadURLs(urls(len(nodes)), rt.path, rt.body, conc, cell/4)
		if top > 0 {
			pgResetStatements(url)
		}
		sides := make([]side, 1+len(lay.Counts)) // 0 is the embedded process, 1+j cluster with lay.Counts[j] nodes
		var clusterReqs int
		for i := range rounds {
			for j := range sides {
				s := (i + j) % len(sides)
				if s == 0 {
					c0 := cpuOf(emb)
					f := spreadURLs([]string{emb.URL}, rt.path, rt.body, conc, cell)
					sides[0].cpu = append(sides[0].cpu, perReqMs(c0, cpuOf(emb), f))
					sides[0].figs = append(sides[0].figs, f)
					continue
				}
				k := lay.Counts[s-1]
				ns := nodes[:k]
				s0, x0, c0, d0 := pgStatements(url), pgTransactions(url), cpuOf(ns...), ownPostgresCPU()
				f := spreadURLs(urls(k), rt.path, rt.body, conc, cell)
				c1, d1 := cpuOf(ns...), ownPostgresCPU()
				sd := &sides[s]
				if s1 := pgStatements(url); s0 >= 0 && s1 >= 0 && f.Requests > 0 {
					sd.st = append(sd.st, float64(s1-s0)/float64(f.Requests))
				}
				if x1 := pgTransactions(url); x0 >= 0 && x1 >= 0 && f.Requests > 0 {
					sd.xs = append(sd.xs, float64(x1-x0)/float64(f.Requests))
				}
				sd.cpu, sd.db = append(sd.cpu, perReqMs(c0, c1, f)), append(sd.db, perReqMs(d0, d1, f))
				sd.figs = append(sd.figs, f)
				clusterReqs += f.Requests
			}
		}
		e, c := sides[0], sides[1]
		r := ProcsResult{Route: rt.name, Statements: -1, EmbeddedCPU: median(e.cpu), ClusterCPU: median(c.cpu), DatabaseCPU: median(c.db), Transactions: -1,
			EmbeddedRSS: procRSS(emb.cmd.Process.Pid), ClusterRSS: procRSS(nodes[0].cmd.Process.Pid)}
		for i := range e.figs {
			r.Ratios = append(r.Ratios, c.figs[i].RPS/max(e.figs[i].RPS, 1e-9))
			r.Errors += e.figs[i].Errors + c.figs[i].Errors
		}
		r.EmbeddedRPS, r.EmbeddedP50, r.EmbeddedP99 = medianFigures(e.figs)
		r.ClusterRPS, r.ClusterP50, r.ClusterP99 = medianFigures(c.figs)
		r.Ratio = r.ClusterRPS / max(r.EmbeddedRPS, 1e-9)
		if len(c.st) > 0 {
			r.Statements = median(c.st)
		}
		if len(c.xs) > 0 {
			r.Transactions = median(c.xs)
		}
		for j, k := range lay.Counts {
			sd := sides[1+j]
			nf := NodesFigures{Nodes: k, NodeCPU: median(sd.cpu), DatabaseCPU: median(sd.db), Statements: -1}
			nf.RPS, nf.P50, nf.P99 = medianFigures(sd.figs)
			nf.Ratio = nf.RPS / max(r.EmbeddedRPS, 1e-9)
			nf.Scale = nf.RPS / max(r.ClusterRPS, 1e-9)
			for i := range sd.figs {
				nf.Scales = append(nf.Scales, sd.figs[i].RPS/max(c.figs[i].RPS, 1e-9))
				if k > 1 {
					r.Errors += sd.figs[i].Errors
				}
			}
			if len(sd.st) > 0 {
				nf.Statements = median(sd.st)
			}
			r.Nodes = append(r.Nodes, nf)
			if k > 1 {
				logf("cluster-procs: %s: %d nodes %.0f/s (%.2f × one node)", rt.name, k, nf.RPS, nf.Scale)
			}
		}
		if top > 0 {
			logTopStatements(url, top, clusterReqs, rt.name, logf)
		}
		logf("cluster-procs: %s: embedded %.0f/s, cluster node %.0f/s (%.2f)", rt.name, r.EmbeddedRPS, r.ClusterRPS, r.Ratio)
		out = append(out, r)
	}
	return out, "", nil
}

// pgStatements is the database's pg_stat_statements total over its own
// connection (-1 when the extension is missing), less this query's own.
func pgStatements(url string) int64 {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return -1
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pg_stat_statements`); err != nil {
		return -1
	}
	var n int64
	if err := conn.QueryRow(ctx, `SELECT coalesce(sum(calls), 0)::bigint FROM pg_stat_statements
		WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&n); err != nil {
		return -1
	}
	return n
}

// medianFigures is the median req/s, p50 and p99 of fs.
func medianFigures(fs []LoadFigures) (rps, p50, p99 float64) {
	var a, b, c []float64
	for _, f := range fs {
		a, b, c = append(a, f.RPS), append(b, f.P50ms), append(c, f.P99ms)
	}
	return median(a), median(b), median(c)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func printClusterProcs(w io.Writer, rep *Report) {
	fmt.Fprintln(w, "\nCluster node vs embedded, as separate processes: hearth serve built from this tree, the embedded default and one")
	fmt.Fprintln(w, "cluster node on a throwaway PostgreSQL (fsync off), on this machine's cores alike, an instant fake upstream; each")
	fmt.Fprintf(w, "route measured in %d rounds of alternating cells (%d clients), medians; ratio = cluster ÷ embedded req/s;\n",
		rep.ProcsRounds, rep.ProcsConc)
	fmt.Fprintln(w, "CPU ms/req: of the embedded process, of the cluster node's process and of PostgreSQL (server and backends);")
	fmt.Fprintln(w, "RSS MiB: resident memory of the embedded process and of the cluster node after the route's rounds.")
	if rep.ProcsSkipped != "" {
		fmt.Fprintf(w, "skipped: %s\n", rep.ProcsSkipped)
		return
	}
	if l := rep.ProcsLayout; l != nil {
		if l.Pinned {
			fmt.Fprintf(w, "pinned with taskset: clients and fake upstream on cores %s, PostgreSQL on %s, node i on %s (the embedded process on node 1's)\n",
				l.Clients, l.DB, strings.Join(l.Nodes, ", "))
		}
		if l.Note != "" {
			fmt.Fprintln(w, l.Note)
		}
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "route\tembedded /s\tp50 ms\tp99 ms\tcluster /s\tp50 ms\tp99 ms\tratio\tratio per round\tdb statements/req\tdb transactions/req\tCPU ms/req: embedded\tnode\tdb\tRSS MiB: embedded\tnode\terrors\t")
	for _, r := range rep.ClusterProcs {
		st := "-"
		if r.Statements >= 0 {
			st = fmt.Sprintf("%.2f", r.Statements)
		}
		xt := "-"
		if r.Transactions >= 0 {
			xt = fmt.Sprintf("%.2f", r.Transactions)
		}
		rs := ""
		for i, x := range r.Ratios {
			if i > 0 {
				rs += " "
			}
			rs += fmt.Sprintf("%.2f", x)
		}
		mib := func(x float64) string {
			if x < 0 {
				return "-"
			}
			return fmt.Sprintf("%.0f", x)
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%.1f\t%.1f\t%.0f\t%.1f\t%.1f\t%.2f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t\n", r.Route, r.EmbeddedRPS, r.EmbeddedP50, r.EmbeddedP99,
			r.ClusterRPS, r.ClusterP50, r.ClusterP99, r.Ratio, rs, st, xt, ms3(r.EmbeddedCPU), ms3(r.ClusterCPU), ms3(r.DatabaseCPU), mib(r.EmbeddedRSS), mib(r.ClusterRSS), r.Errors)
	}
	tw.Flush()
	printClusterNodes(w, rep)
}

// printClusterNodes prints how the cluster side grows with its nodes,
// when more than one count was measured.
func printClusterNodes(w io.Writer, rep *Report) {
	if len(rep.ClusterProcs) == 0 || len(rep.ClusterProcs[0].Nodes) < 2 {
		return
	}
	fmt.Fprintln(w, "\nCluster nodes: the clients spread round-robin over N nodes on one PostgreSQL; × embedded and × one node are of")
	fmt.Fprintln(w, "median req/s (per round: each round's × one node); CPU ms/req of all nodes together and of PostgreSQL; db-bound /s is")
	fmt.Fprintln(w, "the req/s at which PostgreSQL's CPU per request would fill one core (the limit nodes cannot pass, per database core).")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "route\tnodes\treq/s\t× embedded\t× one node\tper round\tp50 ms\tp99 ms\tp99÷p50\tCPU ms/req: nodes\tdb\tdb statements/req\tdb-bound /s\t")
	for _, r := range rep.ClusterProcs {
		for _, n := range r.Nodes {
			rs := make([]string, len(n.Scales))
			for i, x := range n.Scales {
				rs[i] = fmt.Sprintf("%.2f", x)
			}
			st, bound := "-", "-"
			if n.Statements >= 0 {
				st = fmt.Sprintf("%.2f", n.Statements)
			}
			if n.DatabaseCPU > 0 {
				bound = fmt.Sprintf("%.0f", 1000/n.DatabaseCPU)
			}
			fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.2f\t%.2f\t%s\t%.1f\t%.1f\t%.1f\t%s\t%s\t%s\t%s\t\n", r.Route, n.Nodes, n.RPS, n.Ratio, n.Scale,
				strings.Join(rs, " "), n.P50, n.P99, n.P99/max(n.P50, 1e-9), ms3(n.NodeCPU), ms3(n.DatabaseCPU), st, bound)
		}
	}
	tw.Flush()
}

// ms3 prints milliseconds, "-" when unknown (negative).
func ms3(x float64) string {
	if x < 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", x)
}

// buildHearth builds the hearth binary from the working directory (the
// repository's root) into dir and returns its path.
func buildHearth(dir string) (string, error) {
	bin := filepath.Join(dir, "hearth")
	build := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build (run from the repository root): %w: %s", err, out)
	}
	return bin, nil
}
