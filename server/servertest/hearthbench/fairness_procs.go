package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// fairTarget is the server a fairness row measures: in this process, or
// a hearth serve process (-fair-procs).
type fairTarget struct {
	URL string
	Do  func(method, path, key string, body any, headers ...string) *servertest.Response
	// admission samples the admission; nil for a server in another process.
	admission func() server.AdmissionState
	// pid is the server's process (0: in this process).
	pid  int
	stop func()
}

// startFairTarget starts the server of row r against upstream: in this
// process, or with opts.Procs as hearth serve built from the working
// directory, run under nice (opts.Nice) so the clients and the fake
// upstream in this process get the CPU first whenever they need it, as
// they would on cores of their own.
func startFairTarget(opts fairnessOptions, r fairRow, upstream string) (*fairTarget, error) {
	if !opts.Procs {
		tb := &benchTB{}
		var ts *servertest.Server
		asRole("hearth", func() {
			ts = servertest.Start(tb, servertest.WithProvider("openai", upstream, "sk-bench"),
				servertest.WithConfig(func(c *server.Config) {
					c.MaxConcurrent, c.MaxInFlightPerKey = r.max, r.cap
					c.TurnsPerCPU = serverTurns(turnsOf(r.admission))
				}))
		})
		return &fairTarget{URL: ts.URL, Do: ts.Do, admission: ts.Server.Admission, stop: tb.close}, nil
	}
	tmp, err := os.MkdirTemp("", "hearthbench-fair-")
	if err != nil {
		return nil, err
	}
	bin := opts.bin
	if bin == "" {
		if bin, err = buildHearth(tmp); err != nil {
			os.RemoveAll(tmp)
			return nil, err
		}
	}
	argv := []string{bin, "serve"}
	if opts.Pin {
		n := runtime.NumCPU()
		argv = append([]string{"taskset", "-c", cpuList(n/2, n-n/2)}, argv...)
	}
	if opts.Nice != 0 {
		nice, err := exec.LookPath("nice")
		if err != nil {
			os.RemoveAll(tmp)
			return nil, fmt.Errorf("-fair-nice: %w", err)
		}
		argv = append([]string{nice, "-n", strconv.Itoa(opts.Nice)}, argv...)
	}
	n, err := startProcArgs(argv, filepath.Join(tmp, "data"),
		"HEARTH_OPENAI_BASE_URL="+upstream, "HEARTH_OPENAI_API_KEY=sk-bench",
		"HEARTH_MAX_CONCURRENT="+strconv.Itoa(r.max), "HEARTH_MAX_INFLIGHT_PER_KEY="+strconv.Itoa(r.cap),
		"HEARTH_CPU_TURNS="+strconv.Itoa(turnsOf(r.admission)))
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return &fairTarget{URL: n.URL, Do: n.Do, pid: n.cmd.Process.Pid, stop: func() { n.stop(); os.RemoveAll(tmp) }}, nil
}
