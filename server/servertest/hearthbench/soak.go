package main

import (
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"
)

// soakEvery is how often a soak samples the process's memory.
const soakEvery = 5 * time.Second

// SoakResult is one run kind sent back to back by a fixed number of
// clients for a long time (-soak), with the process's memory sampled
// every 5 s: a flat RSS shows nothing grows with the number of requests.
type SoakResult struct {
	Run         string       `json:"run"`
	Concurrency int          `json:"concurrency"`
	Seconds     float64      `json:"seconds"`
	Requests    int64        `json:"requests"`
	Errors      int64        `json:"errors"`
	RPS         float64      `json:"rps"`
	Samples     []SoakSample `json:"samples"`
}

// SoakSample is the process (server, fake upstream and clients) at one
// moment of a soak.
type SoakSample struct {
	AtS          float64 `json:"at_s"`
	Requests     int64   `json:"requests"`
	RSSMiB       float64 `json:"rss_mib"`
	HeapInuseMiB float64 `json:"heap_inuse_mib"`
	Goroutines   int     `json:"goroutines"`
}

// soak sends t from conc clients for d (after the warm-up load uses) and
// samples memory at the start, every 5 s and at the end.
func soak(client *http.Client, t gatewayTarget, name string, conc int, d time.Duration, logf func(string, ...any)) SoakResult {
	if conc <= 0 {
		conc = 16
	}
	var wg sync.WaitGroup
	for range conc {
		wg.Go(func() {
			for range 3 {
				t.do(client)
			}
		})
	}
	wg.Wait()
	res := SoakResult{Run: name, Concurrency: conc}
	var requests, errs atomic.Int64
	start := time.Now()
	sample := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		s := SoakSample{AtS: time.Since(start).Seconds(), Requests: requests.Load(), RSSMiB: rssMiB(),
			HeapInuseMiB: float64(ms.HeapInuse) / (1 << 20), Goroutines: runtime.NumGoroutine()}
		res.Samples = append(res.Samples, s)
		logf("soak %s c=%d: %3.0f s, %d requests, RSS %.0f MiB, heap in use %.0f MiB, %d goroutines",
			name, conc, s.AtS, s.Requests, s.RSSMiB, s.HeapInuseMiB, s.Goroutines)
	}
	sample()
	deadline := start.Add(d)
	for range conc {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				if _, _, err := t.do(client); err != nil {
					errs.Add(1)
					continue
				}
				requests.Add(1)
			}
		})
	}
	tick := time.NewTicker(soakEvery)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for waiting := true; waiting; {
		select {
		case <-tick.C:
			if time.Until(deadline) > soakEvery/2 {
				sample()
			}
		case <-done:
			waiting = false
		}
	}
	tick.Stop()
	res.Seconds = time.Since(start).Seconds()
	res.Requests, res.Errors = requests.Load(), errs.Load()
	res.RPS = float64(res.Requests) / res.Seconds
	sample()
	return res
}

func printSoak(w io.Writer, rs []SoakResult) {
	if len(rs) == 0 {
		return
	}
	fmt.Fprintf(w, "\nSoak: each run sent back to back for the whole period; the process's RSS, heap in use and goroutines\n"+
		"sampled every %s (server, fake upstream and clients share the process).\n", soakEvery)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "run\tconc\ts\trequests\trps\terrors\tRSS MiB first/max/last\theap MiB first/max/last\tgoroutines first/max/last\t")
	for _, r := range rs {
		if len(r.Samples) == 0 {
			continue
		}
		first, last := r.Samples[0], r.Samples[len(r.Samples)-1]
		var rss, heap float64
		var gor int
		for _, s := range r.Samples {
			rss, heap, gor = max(rss, s.RSSMiB), max(heap, s.HeapInuseMiB), max(gor, s.Goroutines)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%d\t%.0f\t%d\t%.0f / %.0f / %.0f\t%.0f / %.0f / %.0f\t%d / %d / %d\t\n", r.Run, r.Concurrency,
			r.Seconds, r.Requests, r.RPS, r.Errors, first.RSSMiB, rss, last.RSSMiB, first.HeapInuseMiB, heap,
			last.HeapInuseMiB, first.Goroutines, gor, last.Goroutines)
	}
	tw.Flush()
	for _, r := range rs {
		fmt.Fprintf(w, "%s samples (s: RSS MiB, heap MiB, goroutines):", r.Run)
		for _, s := range r.Samples {
			fmt.Fprintf(w, " %.0f: %.0f, %.0f, %d;", s.AtS, s.RSSMiB, s.HeapInuseMiB, s.Goroutines)
		}
		fmt.Fprintln(w)
	}
}
