package main

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// opStats collects the latencies and errors of one operation. Only
// successful requests enter the latencies and the throughput: a failed
// request is counted as an error, so a server that answers errors fast
// does not look fast.
type opStats struct {
	name       string
	mu         sync.Mutex
	n          int
	errors     int
	lat        []time.Duration // of successful requests
	errorKinds map[string]int
}

func (s *opStats) add(d time.Duration, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	if err == nil {
		s.lat = append(s.lat, d)
		return
	}
	s.errors++
	if s.errorKinds == nil {
		s.errorKinds = map[string]int{}
	}
	if len(s.errorKinds) < 20 {
		s.errorKinds[err.Error()]++
	}
}

// ok returns the number of successful requests.
func (s *opStats) ok() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n - s.errors
}

// percentiles returns the p50, p99 and maximum latency of the successful
// requests (zero when none succeeded).
func (s *opStats) percentiles() (p50, p99, most time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.lat) == 0 {
		return 0, 0, 0
	}
	l := slices.Clone(s.lat)
	slices.Sort(l)
	at := func(q float64) time.Duration { return l[min(len(l)-1, int(q*float64(len(l))))] }
	return at(0.50), at(0.99), l[len(l)-1]
}

// rssSampler reads the server's resident memory from /proc/<pid>/status.
type rssSampler struct {
	pid   int
	mu    sync.Mutex
	list  []rssSample
	begin time.Time
}

type rssSample struct {
	at  time.Duration
	mib float64
}

// start samples every interval until the returned stop is called.
func (r *rssSampler) start(every time.Duration) (stop func()) {
	r.begin = time.Now()
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			r.sample()
			select {
			case <-done:
				r.sample()
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}

func (r *rssSampler) sample() {
	kb, err := vmRSS(r.pid)
	if err != nil {
		return // not Linux, or the process is gone
	}
	r.mu.Lock()
	r.list = append(r.list, rssSample{at: time.Since(r.begin), mib: float64(kb) / 1024})
	r.mu.Unlock()
}

func (r *rssSampler) samples() []rssSample {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.list)
}

// vmRSS returns the VmRSS line of /proc/<pid>/status, in KiB.
func vmRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}
