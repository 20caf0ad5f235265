package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// FairnessResult is one row of the fairness table: one key floods the
// server while a second key runs at low concurrency, at one
// HEARTH_MAX_CONCURRENT.
type FairnessResult struct {
	MaxConcurrent int `json:"max_concurrent"`
	// CapPerKey is HEARTH_MAX_INFLIGHT_PER_KEY (0: off, the default).
	CapPerKey int `json:"cap_per_key,omitempty"`
	// UpstreamDelayMs is how long the fake upstream waits before it
	// answers (0: at once).
	UpstreamDelayMs float64 `json:"upstream_delay_ms"`
	FloodClients    int     `json:"flood_clients"`
	QuietClients    int     `json:"quiet_clients"`
	// The flooding key's answers during the loaded cell.
	FloodRPS    float64     `json:"flood_rps"`
	FloodOK     int         `json:"flood_ok"`
	Flood429    int         `json:"flood_429"`
	Flood503    int         `json:"flood_503"`
	FloodOther  int         `json:"flood_other_errors"`
	QuietAlone  LoadFigures `json:"quiet_alone"`
	QuietLoaded LoadFigures `json:"quiet_loaded"`
	// P99Ratio is the quiet key's loaded p99 over its p99 alone.
	P99Ratio float64 `json:"p99_ratio"`
}

// fairnessOptions are the section's settings.
type fairnessOptions struct {
	Cell          time.Duration
	MaxConcurrent []int
	Flood, Quiet  int
	// CapPerKey, when set, adds a row at the last MaxConcurrent with this
	// fixed per-key cap (what earlier versions did by default).
	CapPerKey int
	// Delay is how long the fake upstream waits before it answers, as a
	// model would (0: at once).
	Delay time.Duration
}

// runFairness measures, for each MaxConcurrent, the quiet key alone, then
// the quiet key while the flooding key sends from Flood clients, both
// running a pipe (store off) against an in-process fake upstream that
// answers after Delay (at once by default). Each key has its own pipe and
// its own connection pool.
func runFairness(opts fairnessOptions, logf func(string, ...any)) ([]FairnessResult, error) {
	f, err := startUpstream("")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	f.SetDefault(fake.Reply{Text: gatewayReply, FirstByteDelay: opts.Delay})
	type row struct{ max, cap int }
	var rows []row
	for _, mc := range opts.MaxConcurrent {
		rows = append(rows, row{mc, 0})
	}
	if opts.CapPerKey > 0 && len(rows) > 0 {
		rows = append(rows, row{rows[len(rows)-1].max, opts.CapPerKey})
	}
	var out []FairnessResult
	for _, r := range rows {
		res, err := fairnessRow(opts, r.max, r.cap, f.BaseURL(), logf)
		if err != nil {
			return nil, err
		}
		out = append(out, res)
		runtime.GC()
	}
	return out, nil
}

func fairnessRow(opts fairnessOptions, maxConcurrent, capPerKey int, upstream string, logf func(string, ...any)) (FairnessResult, error) {
	res := FairnessResult{MaxConcurrent: maxConcurrent, CapPerKey: capPerKey, FloodClients: opts.Flood, QuietClients: opts.Quiet,
		UpstreamDelayMs: float64(opts.Delay) / float64(time.Millisecond)}
	tb := &benchTB{}
	defer tb.close()
	var ts *servertest.Server
	asRole("hearth", func() {
		ts = servertest.Start(tb, servertest.WithProvider("openai", upstream, "sk-bench"),
			servertest.WithConfig(func(c *server.Config) { c.MaxConcurrent, c.MaxInFlightPerKey = maxConcurrent, capPerKey }))
	})
	user := []map[string]any{{"role": "user", "content": "Say something about foxes."}}
	body, _ := json.Marshal(map[string]any{"messages": user, "stream": false})
	var keys [2]string
	for i, name := range []string{"flood", "quiet"} {
		r := ts.Do("POST", "/v1/pipes", servertest.AdminKey, map[string]any{
			"name": name, "model": "openai:gpt-4o-mini", "store": false,
			"messages": []map[string]any{{"role": "system", "content": "You are terse."}}})
		var p struct {
			APIKey string `json:"api_key"`
		}
		if r.Status != 200 || json.Unmarshal(r.Body, &p) != nil || p.APIKey == "" {
			return res, fmt.Errorf("create pipe %s: %d %s", name, r.Status, r.Body)
		}
		keys[i] = p.APIKey
	}
	pool := func(n int) *http.Client {
		return &http.Client{Transport: &http.Transport{MaxIdleConns: n, MaxIdleConnsPerHost: n,
			DisableCompression: true, IdleConnTimeout: time.Minute}}
	}
	floodClient, quietClient := pool(opts.Flood+16), pool(opts.Quiet+4)
	defer floodClient.CloseIdleConnections()
	defer quietClient.CloseIdleConnections()
	quiet := gatewayTarget{url: ts.URL + "/v1/pipes/run", key: keys[1], body: body}
	asBench(func() {
		res.QuietAlone = load(quietClient, quiet, opts.Quiet, opts.Cell)
		fl := startFlood(floodClient, ts.URL+"/v1/pipes/run", keys[0], body, opts.Flood)
		time.Sleep(opts.Cell / 4) // the flood reaches its pace
		fl.count(true)
		start := time.Now()
		res.QuietLoaded = load(quietClient, quiet, opts.Quiet, opts.Cell)
		counts := fl.count(false)
		elapsed := time.Since(start)
		fl.stop()
		res.FloodOK, res.Flood429, res.Flood503, res.FloodOther = counts[0], counts[1], counts[2], counts[3]
		res.FloodRPS = float64(counts[0]) / elapsed.Seconds()
	})
	if res.QuietAlone.P99ms > 0 {
		res.P99Ratio = res.QuietLoaded.P99ms / res.QuietAlone.P99ms
	}
	logf("fairness max_concurrent=%d cap_per_key=%d: flood %.0f rps (%d 429, %d 503), quiet p99 %.2f ms alone, %.2f ms loaded", maxConcurrent, capPerKey,
		res.FloodRPS, res.Flood429, res.Flood503, res.QuietAlone.P99ms, res.QuietLoaded.P99ms)
	return res, nil
}

// flood is clients sending one request over and over until stopped,
// counting answers by status while counting is on.
type flood struct {
	wg       sync.WaitGroup
	done     atomic.Bool
	counting atomic.Bool
	n        [4]atomic.Int64 // 200, 429, 503, anything else
}

func startFlood(client *http.Client, url, key string, body []byte, clients int) *flood {
	fl := &flood{}
	for range clients {
		fl.wg.Go(func() {
			for !fl.done.Load() {
				i := 3
				req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+key)
				if resp, err := client.Do(req); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					switch resp.StatusCode {
					case 200:
						i = 0
					case 429:
						i = 1
					case 503:
						i = 2
					}
				}
				if fl.counting.Load() {
					fl.n[i].Add(1)
				}
			}
		})
	}
	return fl
}

// count turns counting on or off and returns the counts so far.
func (fl *flood) count(on bool) (c [4]int) {
	fl.counting.Store(on)
	for i := range fl.n {
		c[i] = int(fl.n[i].Load())
	}
	return c
}

func (fl *flood) stop() {
	fl.done.Store(true)
	fl.wg.Wait()
}

func printFairness(w io.Writer, rs []FairnessResult, cell float64) {
	delay := "at once"
	if len(rs) > 0 && rs[0].UpstreamDelayMs > 0 {
		delay = fmt.Sprintf("after %g ms (-fair-delay)", rs[0].UpstreamDelayMs)
	}
	fmt.Fprintf(w, "\nFairness: one key (flood) runs a pipe from many clients while another key (quiet) runs one at low concurrency,\n"+
		"through the real server in-process against a fake upstream that answers %s (store off); %.1f s per cell.\n"+
		"Quiet alone = the quiet key with no flood; loaded = during the flood. Clients, server and fake share the process.\n"+
		"Cap per key = HEARTH_MAX_INFLIGHT_PER_KEY (off by default; the row with a cap is what earlier versions did).\n", delay, cell)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "max concurrent\tcap per key\tflood clients\tflood rps\tflood 429\tflood 503\tflood other\tquiet clients\tquiet rps alone\tquiet p99 ms alone\tquiet p99 ms loaded\tp99 ratio\tquiet errors\t")
	for _, r := range rs {
		capKey := "off"
		if r.CapPerKey > 0 {
			capKey = fmt.Sprint(r.CapPerKey)
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%.0f\t%d\t%d\t%d\t%d\t%.0f\t%.2f\t%.2f\t%.2f\t%d\t\n", r.MaxConcurrent, capKey, r.FloodClients, r.FloodRPS,
			r.Flood429, r.Flood503, r.FloodOther, r.QuietClients, r.QuietAlone.RPS, r.QuietAlone.P99ms, r.QuietLoaded.P99ms,
			r.P99Ratio, r.QuietAlone.Errors+r.QuietLoaded.Errors)
	}
	tw.Flush()
}
