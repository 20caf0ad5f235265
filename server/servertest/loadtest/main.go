// Command loadtest drives the real hearth binary with a fake OpenAI
// upstream, both on loopback, for a bounded time, and prints throughput,
// latency percentiles and errors per operation (pipe runs as JSON and as
// streams, retrieval, document uploads) and the server's resident memory
// over time. It is what `make loadtest` runs.
//
//	go run ./server/servertest/loadtest                      # 30 s, 8 clients
//	go run ./server/servertest/loadtest -duration 2m -clients 16
//	go run ./server/servertest/loadtest -bin bin/hearth      # an already built binary
//
// It exits with status 1 when any request failed. All traffic stays on
// 127.0.0.1.
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/hearth-dev/hearth/providers/fake"
)

const adminKey = "hth_user_loadtestkey00000000000000000000"

func main() {
	duration := flag.Duration("duration", 30*time.Second, "how long to drive the server")
	clients := flag.Int("clients", 8, "concurrent clients")
	bin := flag.String("bin", "", "hearth binary to test (default: build one)")
	chunkDelay := flag.Duration("chunk-delay", 2*time.Millisecond, "fake upstream delay between stream events")
	only := flag.String("ops", "", "comma-separated operations to run (default all): run-json, run-stream, retrieve, upload")
	flag.Parse()
	if err := run(*duration, *clients, *bin, *chunkDelay, *only); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[loadtest] "+format+"\n", args...)
}

func run(duration time.Duration, clients int, bin string, chunkDelay time.Duration, only string) error {
	tmp, err := os.MkdirTemp("", "hearth-loadtest-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if bin == "" {
		bin = filepath.Join(tmp, "hearth")
		logf("building %s", bin)
		cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go build (run from the repository root): %w", err)
		}
	}
	up := fake.NewOpenAI()
	defer up.Close()
	up.SetRecording(false)
	up.SetDefault(fake.Reply{Text: "Load test answer with a handful of words in it.", ChunkDelay: chunkDelay})

	addr, err := freeAddr()
	if err != nil {
		return err
	}
	srv := exec.Command(bin, "serve")
	srv.Env = append(os.Environ(), "HEARTH_DATA="+filepath.Join(tmp, "data"), "HEARTH_ADDR="+addr,
		"HEARTH_ADMIN_KEY="+adminKey, "HEARTH_LOG_LEVEL=warn", "HEARTH_METRICS=off",
		"HEARTH_OPENAI_BASE_URL="+up.BaseURL(), "HEARTH_OPENAI_API_KEY=sk-load")
	srv.Stderr = os.Stderr
	if err := srv.Start(); err != nil {
		return err
	}
	defer func() {
		srv.Process.Signal(os.Interrupt)
		srv.Wait()
	}()
	c := newClient("http://"+addr, clients)
	if err := c.waitHealthy(15 * time.Second); err != nil {
		return err
	}
	if err := setup(c); err != nil {
		return fmt.Errorf("setup: %w", err)
	}

	logf("driving %s with %d clients for %s", c.base, clients, duration)
	rss := &rssSampler{pid: srv.Process.Pid}
	stopRSS := rss.start(time.Second)
	ops, err := pick(operations(c), only)
	if err != nil {
		return err
	}
	res := make([]*opStats, len(ops))
	for i, op := range ops {
		res[i] = &opStats{name: op.name}
	}
	deadline := time.Now().Add(duration)
	var wg sync.WaitGroup
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; time.Now().Before(deadline); i++ {
				k := i % len(ops)
				start := time.Now()
				err := ops[k].do(w, i)
				res[k].add(time.Since(start), err)
			}
		}()
	}
	start := time.Now()
	wg.Wait()
	elapsed := time.Since(start)
	stopRSS()
	errs := report(res, elapsed, rss.samples())
	backlog(c)
	if errs > 0 {
		return fmt.Errorf("%d requests failed", errs)
	}
	return nil
}

// pick keeps the operations named in only ("run-json,retrieve"); all when empty.
func pick(ops []operation, only string) ([]operation, error) {
	if only == "" {
		return ops, nil
	}
	var out []operation
	for _, name := range strings.Split(only, ",") {
		found := false
		for _, op := range ops {
			if strings.ReplaceAll(op.name, " ", "-") == strings.TrimSpace(name) {
				out, found = append(out, op), true
			}
		}
		if !found {
			return nil, fmt.Errorf("-ops: unknown operation %q", name)
		}
	}
	return out, nil
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// report prints the tables and returns the number of errors. Throughput
// (ok/s) and latencies count successful requests only.
func report(res []*opStats, elapsed time.Duration, rss []rssSample) int {
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "operation\trequests\tok\tok/s\tp50 ms\tp99 ms\tmax ms\terrors\t\n")
	total, oks, errs := 0, 0, 0
	for _, s := range res {
		p50, p99, mx := s.percentiles()
		ok := s.ok()
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%d\t\n", s.name, s.n, ok, float64(ok)/elapsed.Seconds(), ms(p50), ms(p99), ms(mx), s.errors)
		total += s.n
		oks += ok
		errs += s.errors
	}
	fmt.Fprintf(tw, "all\t%d\t%d\t%.1f\t\t\t\t%d\t\n", total, oks, float64(oks)/elapsed.Seconds(), errs)
	tw.Flush()
	for _, s := range res {
		for msg, n := range s.errorKinds {
			fmt.Printf("  %s: %d x %s\n", s.name, n, msg)
		}
	}
	if len(rss) > 0 {
		fmt.Println()
		tw = tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "time s\tRSS MiB\t\n")
		step := max(1, len(rss)/10)
		last := rss[len(rss)-1]
		for i := 0; i < len(rss)-1; i += step {
			fmt.Fprintf(tw, "%.0f\t%.1f\t\n", rss[i].at.Seconds(), rss[i].mib)
		}
		fmt.Fprintf(tw, "%.0f\t%.1f\t\n", last.at.Seconds(), last.mib)
		tw.Flush()
		lo, hi := rss[0].mib, rss[0].mib
		for _, s := range rss {
			lo, hi = min(lo, s.mib), max(hi, s.mib)
		}
		// Compare the mean of the second and the last quarter: the first
		// is warm-up (caches and memtables filling).
		mean := func(from, to int) float64 {
			sum := 0.0
			for _, s := range rss[from:to] {
				sum += s.mib
			}
			return sum / float64(max(1, to-from))
		}
		q := max(1, len(rss)/4)
		early, late := mean(q, min(2*q, len(rss))), mean(max(len(rss)-q, 0), len(rss))
		fmt.Printf("RSS: min %.1f MiB, max %.1f MiB; mean %.1f MiB in the second quarter, %.1f MiB in the last (%+.0f%%)\n",
			lo, hi, early, late, 100*(late-early)/early)
	}
	return errs
}

// backlog prints how far ingestion kept up with the uploads.
func backlog(c *client) {
	var docs []struct{ Status string }
	if err := c.json("GET", "/v1/memory/kb/documents", nil, &docs); err != nil {
		fmt.Println("documents: cannot list:", err)
		return
	}
	by := map[string]int{}
	for _, d := range docs {
		by[d.Status]++
	}
	fmt.Printf("documents at the end: %d stored, %d completed, %d queued or in progress, %d failed\n",
		len(docs), by["completed"], by["queued"]+by["in_progress"], by["failed"])
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
