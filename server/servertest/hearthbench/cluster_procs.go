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

// startProc starts bin serve with env added to this process's, and waits
// until it answers.
func startProc(bin, dir string, env ...string) (*procNode, error) {
	return startProcArgs([]string{bin, "serve"}, dir, env...)
}

// startProcArgs is startProc with the whole command line (a prefix such
// as nice before the binary).
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

// runClusterProcs runs the embedded default and one cluster node as
// separate hearth serve processes (built from the working directory, the
// repository's root) on the same machine, seeds both alike, then measures
// each route in rounds, alternating which side goes first, so both see
// the same load from other work. It returns a reason instead when
// PostgreSQL is not installed.
func runClusterProcs(quick bool, cell time.Duration, rounds, conc int, only func(string) bool, top int, logf func(string, ...any)) ([]ProcsResult, string, error) {
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
	up := fake.NewOpenAI()
	defer up.Close()
	up.SetRecording(false)
	up.SetDefault(fake.Reply{Text: gatewayReply})
	provider := []string{"HEARTH_OPENAI_BASE_URL=" + up.BaseURL(), "HEARTH_OPENAI_API_KEY=sk-bench"}
	emb, err := startProc(bin, filepath.Join(tmp, "embedded"), provider...)
	if err != nil {
		return nil, "", fmt.Errorf("embedded: %w", err)
	}
	defer emb.stop()
	clu, err := startProc(bin, filepath.Join(tmp, "cluster"), append(provider, "HEARTH_DATABASE_URL="+url,
		"HEARTH_SECRET_KEY=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff")...)
	if err != nil {
		return nil, "", fmt.Errorf("cluster node: %w", err)
	}
	defer clu.stop()
	docs := 200
	if quick {
		docs = 60
	}
	for _, n := range []*procNode{emb, clu} {
		if err := seedCluster(n, docs, newVocab(7)); err != nil {
			return nil, "", err
		}
		if r := n.Do("POST", "/v1/pipes", servertest.AdminKey, map[string]any{"name": "bench-nostore",
			"model": "openai:gpt-4o-mini", "store": false}); r.Status != 200 {
			return nil, "", fmt.Errorf("create pipe: %d %s", r.Status, r.Body)
		}
	}
	stmts := func() int64 { return pgStatements(url) }
	// perReqMs is CPU milliseconds per request between two readings.
	perReqMs := func(c0, c1 float64, f LoadFigures) float64 {
		if c0 < 0 || c1 < 0 || f.Requests == 0 {
			return -1
		}
		return 1000 * (c1 - c0) / float64(f.Requests)
	}
	var out []ProcsResult
	for _, rt := range procsRoutes() {
		if !only(rt.name) {
			continue
		}
		// A short cell each, not counted, warms both up.
		spreadURLs([]string{emb.URL}, rt.path, rt.body, conc, cell/4)
		spreadURLs([]string{clu.URL}, rt.path, rt.body, conc, cell/4)
		if top > 0 {
			pgResetStatements(url)
		}
		var e, c []LoadFigures
		var clusterReqs int
		var st, xs, ecpu, ccpu, dcpu []float64
		for i := range rounds {
			for j := range 2 {
				if (i+j)%2 == 0 {
					c0 := procCPU(emb.cmd.Process.Pid)
					f := spreadURLs([]string{emb.URL}, rt.path, rt.body, conc, cell)
					ecpu = append(ecpu, perReqMs(c0, procCPU(emb.cmd.Process.Pid), f))
					e = append(e, f)
					continue
				}
				s0, x0, c0, d0 := stmts(), pgTransactions(url), procCPU(clu.cmd.Process.Pid), ownPostgresCPU()
				f := spreadURLs([]string{clu.URL}, rt.path, rt.body, conc, cell)
				c1, d1 := procCPU(clu.cmd.Process.Pid), ownPostgresCPU()
				if s1 := stmts(); s0 >= 0 && s1 >= 0 && f.Requests > 0 {
					st = append(st, float64(s1-s0)/float64(f.Requests))
				}
				if x1 := pgTransactions(url); x0 >= 0 && x1 >= 0 && f.Requests > 0 {
					xs = append(xs, float64(x1-x0)/float64(f.Requests))
				}
				ccpu, dcpu = append(ccpu, perReqMs(c0, c1, f)), append(dcpu, perReqMs(d0, d1, f))
				c = append(c, f)
				clusterReqs += f.Requests
			}
		}
		r := ProcsResult{Route: rt.name, Statements: -1, EmbeddedCPU: median(ecpu), ClusterCPU: median(ccpu), DatabaseCPU: median(dcpu), Transactions: -1,
			EmbeddedRSS: procRSS(emb.cmd.Process.Pid), ClusterRSS: procRSS(clu.cmd.Process.Pid)}
		for i := range e {
			r.Ratios = append(r.Ratios, c[i].RPS/max(e[i].RPS, 1e-9))
			r.Errors += e[i].Errors + c[i].Errors
		}
		r.EmbeddedRPS, r.EmbeddedP50, r.EmbeddedP99 = medianFigures(e)
		r.ClusterRPS, r.ClusterP50, r.ClusterP99 = medianFigures(c)
		r.Ratio = r.ClusterRPS / max(r.EmbeddedRPS, 1e-9)
		if len(st) > 0 {
			r.Statements = median(st)
		}
		if len(xs) > 0 {
			r.Transactions = median(xs)
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
		ms := func(x float64) string {
			if x < 0 {
				return "-"
			}
			return fmt.Sprintf("%.3f", x)
		}
		mib := func(x float64) string {
			if x < 0 {
				return "-"
			}
			return fmt.Sprintf("%.0f", x)
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%.1f\t%.1f\t%.0f\t%.1f\t%.1f\t%.2f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t\n", r.Route, r.EmbeddedRPS, r.EmbeddedP50, r.EmbeddedP99,
			r.ClusterRPS, r.ClusterP50, r.ClusterP99, r.Ratio, rs, st, xt, ms(r.EmbeddedCPU), ms(r.ClusterCPU), ms(r.DatabaseCPU), mib(r.EmbeddedRSS), mib(r.ClusterRSS), r.Errors)
	}
	tw.Flush()
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
