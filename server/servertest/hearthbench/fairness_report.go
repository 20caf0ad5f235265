package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/hearth-dev/hearth/server"
)

// watchAdmission samples the admission every 10 ms until the function it
// returns is called, which reports the most requests seen waiting for a
// slot and for a CPU turn.
func watchAdmission(state func() server.AdmissionState) func() (waitingMax, turnsWaitingMax int) {
	if state == nil {
		// A server in another process: not sampled.
		return func() (int, int) { return -1, -1 }
	}
	stop := make(chan struct{})
	var waiting, turns int
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			a := state()
			waiting, turns = max(waiting, a.Waiting), max(turns, a.TurnsWaiting)
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	})
	return func() (int, int) {
		close(stop)
		wg.Wait()
		return waiting, turns
	}
}

func printFairness(w io.Writer, rs []FairnessResult, cell float64) {
	delay := "at once"
	if len(rs) > 0 && rs[0].UpstreamDelayMs > 0 {
		delay = fmt.Sprintf("after %g ms (-fair-delay)", rs[0].UpstreamDelayMs)
	}
	fmt.Fprintf(w, "\nFairness: one key (flood) runs a pipe from many clients while another key (quiet) runs one at low concurrency,\n"+
		"through the real server in-process against a fake upstream that answers %s (store off); %.1f s per cell.\n"+
		"Quiet alone = the quiet key with no flood; loaded = during the flood. Clients, server and fake share the process\n"+
		"(with -fair-procs the server is a hearth serve process of its own: \"in-process\" above is then not so).\n"+
		"Admission: fixed = the HEARTH_MAX_CONCURRENT slots alone (HEARTH_CPU_TURNS=0); turns:N = also N CPU turns per CPU (HEARTH_CPU_TURNS; 2, the default);\n"+
		"waiting = the most requests seen waiting for a slot and for a turn (samples every 10 ms; - for a server in another process);\n"+
		"turns given = turns given away by requests waiting on the upstream, taken = taken back from requests that held one too long.\n"+
		"server cores = the CPU the server process used during the flood, in cores (- in-process).\n"+
		"Cap per key = HEARTH_MAX_INFLIGHT_PER_KEY (off by default; the row with a cap is what earlier versions did).\n", delay, cell)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "round\tmax concurrent\tadmission\tcap per key\tflood clients\tflood rps\tflood 429\tflood 503\tflood other\tquiet clients\tquiet rps alone\tquiet p99 ms alone\tquiet p99 ms loaded\tp99 ratio\tquiet errors\twaiting max\tturns waiting max\tturns given\tturns taken\tserver cores\tload\t")
	for _, r := range rs {
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%d\t%.0f\t%d\t%d\t%d\t%d\t%.0f\t%.2f\t%.2f\t%.2f\t%d\t%s\t%s\t%d\t%d\t%s\t%s\t\n", r.Round, r.MaxConcurrent, r.Admission, capLabel(r.CapPerKey),
			r.FloodClients, r.FloodRPS, r.Flood429, r.Flood503, r.FloodOther, r.QuietClients, r.QuietAlone.RPS, r.QuietAlone.P99ms, r.QuietLoaded.P99ms,
			r.P99Ratio, r.QuietAlone.Errors+r.QuietLoaded.Errors, count(r.WaitingMax), count(r.TurnsWaitingMax), r.TurnsGiven, r.TurnsTaken, cores(r.ServerCores), r.Load)
	}
	tw.Flush()
	printFairnessMedians(w, rs)
}

// cores prints a CPU use in cores, "-" when unknown (negative).
func cores(x float64) string {
	if x < 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", x)
}

func capLabel(n int) string {
	if n > 0 {
		return fmt.Sprint(n)
	}
	return "off"
}

// printFairnessMedians sums up the rounds of each setting: the medians
// and ranges of the p99 ratio, of the quiet key's loaded p99 and of the
// flood's rps, and the refusals. The quiet key alone meets no admission
// limit, so its p99 alone is pooled over every row of the run: the
// loaded median over that pooled median is steadier than the median of
// the ratios on a shared machine.
func printFairnessMedians(w io.Writer, rs []FairnessResult) {
	type key struct {
		max, cap  int
		admission string
	}
	var order []key
	groups := map[key][]FairnessResult{}
	var alone []float64
	for _, r := range rs {
		k := key{r.MaxConcurrent, r.CapPerKey, r.Admission}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
		alone = append(alone, r.QuietAlone.P99ms)
	}
	if len(rs) == len(order) {
		return
	}
	pooled := median(alone)
	fmt.Fprintf(w, "\nMedians over the rounds (range in brackets); the quiet key's p99 alone, pooled over all %d rows: %s ms\n", len(rs), medianRange(alone, "%.2f"))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "max concurrent\tadmission\tcap per key\trounds\tp99 ratio\tquiet p99 ms loaded\tloaded ÷ pooled alone\tflood rps\tflood 429+503\tquiet errors\t")
	for _, k := range order {
		g := groups[k]
		var ratio, loaded, rps []float64
		refused, errs := 0, 0
		for _, r := range g {
			ratio, loaded, rps = append(ratio, r.P99Ratio), append(loaded, r.QuietLoaded.P99ms), append(rps, r.FloodRPS)
			refused += r.Flood429 + r.Flood503
			errs += r.QuietAlone.Errors + r.QuietLoaded.Errors
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%s\t%.2f\t%s\t%d\t%d\t\n", k.max, k.admission, capLabel(k.cap), len(g),
			medianRange(ratio, "%.2f"), medianRange(loaded, "%.1f"), median(loaded)/pooled, medianRange(rps, "%.0f"), refused, errs)
	}
	tw.Flush()
}

// medianRange formats the median of xs and its range.
func medianRange(xs []float64, f string) string {
	return fmt.Sprintf(f+" ["+f+"-"+f+"]", median(xs), slices.Min(xs), slices.Max(xs))
}

// count prints n, or - when it was not measured (below 0).
func count(n int) string {
	if n < 0 {
		return "-"
	}
	return strconv.Itoa(n)
}
