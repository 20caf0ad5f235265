// Command hearthbench measures Hearth against references, side by side in
// one run, and prints tables (and JSON for tracking). It is what `make
// bench` runs; numbers are measurements, never pass/fail checks.
//
//	go run ./server/servertest/hearthbench -quick          # small sizes, a minute or two
//	go run ./server/servertest/hearthbench                 # the full set (< 15 min on 2 cores)
//	go run ./server/servertest/hearthbench -json out.json  # also write JSON
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is everything one run measured.
type Report struct {
	Machine   string            `json:"machine"`
	StartedAt time.Time         `json:"started_at"`
	Seconds   float64           `json:"seconds"`
	Retrieval []RetrievalResult `json:"retrieval,omitempty"`
	Scaling   []ScalingRow      `json:"scaling,omitempty"`
	Ingest    []IngestResult    `json:"ingest,omitempty"`
}

func main() {
	quick := flag.Bool("quick", false, "small sizes only (a quick look)")
	sections := flag.String("sections", "retrieval,ingest", "comma-separated sections to run: retrieval, ingest")
	jsonOut := flag.String("json", "", "also write the report as JSON to this file")
	queries := flag.Int("queries", 200, "queries per retrieval case")
	flag.Parse()

	rep := &Report{Machine: machine(), StartedAt: time.Now().UTC()}
	logf := func(f string, a ...any) {
		fmt.Fprintf(os.Stderr, "[%6.1fs] %s\n", time.Since(rep.StartedAt).Seconds(), fmt.Sprintf(f, a...))
	}
	want := map[string]bool{}
	for _, s := range strings.Split(*sections, ",") {
		want[strings.TrimSpace(s)] = true
	}

	if want["retrieval"] {
		cases := []retrievalCase{
			{N: 10_000, Dim: 384, Coder: true}, {N: 100_000, Dim: 384, Coder: true, Reopen: true}, {N: 1_000_000, Dim: 384, Reopen: true},
			{N: 10_000, Dim: 1536, Coder: true}, {N: 100_000, Dim: 1536},
		}
		if *quick {
			cases = []retrievalCase{{N: 2_000, Dim: 384, Coder: true, Reopen: true}, {N: 20_000, Dim: 384, Coder: true}, {N: 2_000, Dim: 1536}}
		}
		for _, c := range cases {
			rep.Retrieval = append(rep.Retrieval, runRetrieval(c, *queries, logf)...)
			runtime.GC()
		}
		rep.Scaling = scaling(rep.Retrieval)
	}
	if want["ingest"] {
		for _, c := range ingestCases(*quick) {
			r, err := runIngest(c, *queries, logf)
			if err != nil {
				fmt.Fprintln(os.Stderr, "ingest:", err)
				os.Exit(1)
			}
			rep.Ingest = append(rep.Ingest, r)
			runtime.GC()
		}
	}
	rep.Seconds = time.Since(rep.StartedAt).Seconds()
	printReport(os.Stdout, rep)
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(*jsonOut, b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
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
	return fmt.Sprintf("%s, %d cores%s, %s %s/%s", model, runtime.NumCPU(), mem, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// ScalingRow says how one index's search latency grows with size.
type ScalingRow struct {
	Index  string  `json:"index"`
	Dim    int     `json:"dim"`
	FromN  int     `json:"from_n"`
	ToN    int     `json:"to_n"`
	P50x   float64 `json:"p50_factor"`
	BuildX float64 `json:"build_factor"`
	Growth string  `json:"growth"`
}

// scaling classifies latency growth between the smallest and largest size
// of each index and dimension: the exponent of n in p50 ~ n^e.
func scaling(rs []RetrievalResult) []ScalingRow {
	type key struct {
		idx string
		dim int
	}
	groups := map[key][]RetrievalResult{}
	var order []key
	for _, r := range rs {
		k := key{r.Index, r.Dim}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	var out []ScalingRow
	for _, k := range order {
		g := groups[k]
		if len(g) < 2 {
			continue
		}
		a, b := g[0], g[len(g)-1]
		sizeX := float64(b.N) / float64(a.N)
		p50x := b.P50us / a.P50us
		e := logRatio(p50x) / logRatio(sizeX)
		growth := "worse than linear"
		switch {
		case e < 0.25:
			growth = "logarithmic (sub-linear)"
		case e < 0.75:
			growth = "sub-linear"
		case e < 1.25:
			growth = "linear"
		}
		out = append(out, ScalingRow{Index: k.idx, Dim: k.dim, FromN: a.N, ToN: b.N, P50x: p50x,
			BuildX: b.BuildSeconds / max(a.BuildSeconds, 1e-9), Growth: fmt.Sprintf("%s (n^%.2f)", growth, e)})
	}
	return out
}

func printReport(w *os.File, rep *Report) {
	fmt.Fprintf(w, "Hearth benchmarks, %s\nmachine: %s\ntotal: %.0f s\n", rep.StartedAt.Format(time.RFC3339), rep.Machine, rep.Seconds)
	if len(rep.Retrieval) > 0 {
		fmt.Fprintln(w, "\nRetrieval (top-10, recall against exact search)")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "index\tn\tdim\tbuild s\tp50 µs\tp99 µs\trecall@10\tB/vector\treopen s\t")
		for _, r := range rep.Retrieval {
			reopen := "-"
			if r.ReopenSecs > 0 {
				reopen = fmt.Sprintf("%.2f", r.ReopenSecs)
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%.0f\t%.0f\t%.3f\t%.0f\t%s\t\n", r.Index, r.N, r.Dim, r.BuildSeconds, r.P50us, r.P99us, r.Recall10, r.BytesPerVec, reopen)
		}
		tw.Flush()
	}
	if len(rep.Ingest) > 0 {
		printIngest(w, rep.Ingest)
	}
	if len(rep.Scaling) > 0 {
		fmt.Fprintln(w, "\nScaling of search p50 from the smallest to the largest size")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "index\tdim\tsizes\tp50 x\tbuild x\tgrowth")
		for _, s := range rep.Scaling {
			fmt.Fprintf(tw, "%s\t%d\t%d -> %d\t%.2f\t%.1f\t%s\n", s.Index, s.Dim, s.FromN, s.ToN, s.P50x, s.BuildX, s.Growth)
		}
		tw.Flush()
	}
}

func logRatio(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return ln(x)
}
