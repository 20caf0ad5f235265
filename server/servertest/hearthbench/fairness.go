package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// FairnessResult is one row of the fairness table: one key floods the
// server while a second key runs at low concurrency, at one
// HEARTH_MAX_CONCURRENT.
type FairnessResult struct {
	MaxConcurrent int `json:"max_concurrent"`
	// Admission is "fixed" (the MaxConcurrent slots alone: no CPU turns)
	// or "turns:N" (also N CPU turns per CPU: HEARTH_CPU_TURNS).
	Admission string `json:"admission"`
	// TurnsTaken counts the CPU turns taken back from requests that held
	// one too long (admission "turns:N" only).
	TurnsTaken uint64 `json:"turns_taken,omitempty"`
	// TurnsGiven counts the turns given away by requests waiting on the
	// upstream (admission "turns:N" only).
	TurnsGiven uint64 `json:"turns_given,omitempty"`
	// Round counts the rounds of -fair-rounds from 1.
	Round int `json:"round"`
	// WaitingMax and TurnsWaitingMax are the most requests seen waiting
	// for a slot and for a CPU turn during the loaded cell (samples every
	// 10 ms; -1 for a server in another process).
	WaitingMax      int `json:"waiting_max"`
	TurnsWaitingMax int `json:"turns_waiting_max"`
	// Load is the machine's load average as the row ended.
	Load string `json:"load"`
	// CapPerKey is HEARTH_MAX_INFLIGHT_PER_KEY (0: off, the default).
	CapPerKey int `json:"cap_per_key,omitempty"`
	// UpstreamDelayMs is how long the fake upstream waits before it
	// answers (0: at once).
	UpstreamDelayMs float64 `json:"upstream_delay_ms"`
	// ServerCores is the CPU the server used during the flood, in cores
	// (its CPU seconds a second); -1 for a server in this process.
	ServerCores  float64 `json:"server_cores"`
	FloodClients int     `json:"flood_clients"`
	QuietClients int     `json:"quiet_clients"`
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
	// Admission lists the admission of each row ("fixed", "turns:N");
	// Rounds repeats every row, interleaved, that many times.
	Admission []string
	Rounds    int
	// Procs runs the server as a hearth serve process (built once from
	// the working directory into bin) under nice Nice, instead of in
	// this process.
	Procs bool
	Nice  int
	// Pin, with Procs, pins the server to the upper half of the cores and
	// this process (clients, fake upstream) to the lower half with
	// taskset, as on cores of their own.
	Pin bool
	// Raw sends the flood, and answers as the fake upstream, with canned
	// bytes on plain sockets (fairness_raw.go).
	Raw bool
	bin string
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
	upstreamURL := f.BaseURL()
	if opts.Raw {
		u, err := startRawUpstream(opts.Delay)
		if err != nil {
			return nil, err
		}
		defer u.Close()
		upstreamURL = u.BaseURL()
	}
	if opts.Procs {
		tmp, err := os.MkdirTemp("", "hearthbench-fair-bin-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		if opts.bin, err = buildHearth(tmp); err != nil {
			return nil, err
		}
	}
	if opts.Pin {
		if !opts.Procs {
			return nil, fmt.Errorf("-fair-pin needs -fair-procs")
		}
		n := runtime.NumCPU()
		if n < 2 || !haveTaskset() {
			return nil, fmt.Errorf("-fair-pin needs taskset and 2 cores or more (this machine: %d)", n)
		}
		if err := pinPids(cpuList(0, n/2), os.Getpid()); err != nil {
			return nil, err
		}
		defer pinPids(cpuList(0, n), os.Getpid())
	}
	for _, a := range opts.Admission {
		if n, err := strconv.Atoi(strings.TrimPrefix(a, "turns:")); a != "fixed" && (err != nil || n < 1 || !strings.HasPrefix(a, "turns:")) {
			return nil, fmt.Errorf("-fair-admission: %q is neither fixed nor turns:N with N at least 1", a)
		}
	}
	var rows []fairRow
	for _, mc := range opts.MaxConcurrent {
		for _, a := range opts.Admission {
			rows = append(rows, fairRow{mc, 0, a})
		}
	}
	if opts.CapPerKey > 0 && len(rows) > 0 {
		rows = append(rows, fairRow{rows[len(rows)-1].max, opts.CapPerKey, "fixed"})
	}
	var out []FairnessResult
	for round := 1; round <= max(opts.Rounds, 1); round++ {
		for _, r := range rows {
			res, err := fairnessRow(opts, r, upstreamURL, logf)
			if err != nil {
				return nil, err
			}
			res.Round = round
			out = append(out, res)
			runtime.GC()
		}
	}
	return out, nil
}

// fairRow is the server's settings in one row.
type fairRow struct {
	max, cap  int
	admission string
}

func fairnessRow(opts fairnessOptions, r fairRow, upstream string, logf func(string, ...any)) (FairnessResult, error) {
	maxConcurrent, capPerKey := r.max, r.cap
	res := FairnessResult{MaxConcurrent: maxConcurrent, CapPerKey: capPerKey, Admission: r.admission, FloodClients: opts.Flood, QuietClients: opts.Quiet,
		UpstreamDelayMs: float64(opts.Delay) / float64(time.Millisecond)}
	ts, err := startFairTarget(opts, r, upstream)
	if err != nil {
		return res, err
	}
	defer ts.stop()
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
		var fl *flood
		if opts.Raw {
			if fl, err = startRawFlood(ts.URL+"/v1/pipes/run", keys[0], body, opts.Flood); err != nil {
				return
			}
		} else {
			fl = startFlood(floodClient, ts.URL+"/v1/pipes/run", keys[0], body, opts.Flood)
		}
		time.Sleep(opts.Cell / 4) // the flood reaches its pace
		fl.count(true)
		start, cpu0 := time.Now(), -1.0
		if ts.pid != 0 {
			cpu0 = procCPU(ts.pid)
		}
		watch := watchAdmission(ts.admission)
		res.QuietLoaded = load(quietClient, quiet, opts.Quiet, opts.Cell)
		counts := fl.count(false)
		elapsed := time.Since(start)
		res.ServerCores = -1
		if cpu0 >= 0 {
			if cpu1 := procCPU(ts.pid); cpu1 >= 0 {
				res.ServerCores = (cpu1 - cpu0) / elapsed.Seconds()
			}
		}
		res.WaitingMax, res.TurnsWaitingMax = watch()
		if ts.admission != nil {
			a := ts.admission()
			res.TurnsTaken, res.TurnsGiven = a.TurnsTaken, a.TurnsGiven
		}
		fl.stop()
		res.FloodOK, res.Flood429, res.Flood503, res.FloodOther = counts[0], counts[1], counts[2], counts[3]
		res.FloodRPS = float64(counts[0]) / elapsed.Seconds()
	})
	if err != nil {
		return res, err
	}
	if res.QuietAlone.P99ms > 0 {
		res.P99Ratio = res.QuietLoaded.P99ms / res.QuietAlone.P99ms
	}
	res.Load = loadAverage()
	logf("fairness max_concurrent=%d admission=%s cap_per_key=%d: flood %.0f rps (%d 429, %d 503), quiet p99 %.2f ms alone, %.2f ms loaded (%.2f x), waiting max %d, turns waiting max %d, given away %d, taken back %d; load %s",
		maxConcurrent, r.admission, capPerKey, res.FloodRPS, res.Flood429, res.Flood503, res.QuietAlone.P99ms, res.QuietLoaded.P99ms, res.P99Ratio,
		res.WaitingMax, res.TurnsWaitingMax, res.TurnsGiven, res.TurnsTaken, res.Load)
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
				status := 0
				req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+key)
				if resp, err := client.Do(req); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					status = resp.StatusCode
				}
				fl.record(status)
			}
		})
	}
	return fl
}

// record counts an answer of status (0: none) while counting is on.
func (fl *flood) record(status int) {
	if !fl.counting.Load() {
		return
	}
	switch status {
	case 200:
		fl.n[0].Add(1)
	case 429:
		fl.n[1].Add(1)
	case 503:
		fl.n[2].Add(1)
	default:
		fl.n[3].Add(1)
	}
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

// serverTurns is server.Config.TurnsPerCPU for HEARTH_CPU_TURNS=n: 0
// there is off, -1 here (0 here is the server's default).
func serverTurns(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// turnsOf is the CPU turns per CPU of an admission: N for "turns:N", 0
// (no bound) otherwise.
func turnsOf(admission string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(admission, "turns:"))
	if !strings.HasPrefix(admission, "turns:") {
		return 0
	}
	return n
}
