package server

import (
	"runtime"
	"runtime/metrics"
	"time"
)

// Adaptive admission (experimental, off by default: Config.AdmissionAdaptive;
// docs/benchmarks.md#fairness has what it measured): the slots in effect
// follow CPU contention, not request latency, which a slow model
// dominates. The signal is the Go scheduler's own: how long goroutines of
// this process waited for a CPU, and how many wait. Each node reads its
// own process; nothing is shared between Hearth nodes.

// Settings of the adaptive limit.
const (
	adaptTick      = 20 * time.Millisecond  // how often the signal is read
	adaptSlowAfter = 500 * time.Microsecond // a wake-up that waited longer than this for a CPU is slow
	adaptBusyShare = 0.05                   // an interval is contended when more than this share of its wake-ups were slow
	adaptMinWakes  = 16                     // and at least this many wake-ups were sampled
	adaptRunnable  = 2                      // and at least this many goroutines per CPU wait to run as it ends
	adaptBusyRun   = 5                      // the limit drops after this many contended intervals in a row
	adaptDecrease  = 0.5                    // to this fraction of the requests holding a slot
	adaptCalmRun   = 5                      // after this many calm intervals in a row each raise doubles
)

// adaptLimit is the controller of the slots in effect: after adaptBusyRun
// contended intervals in a row it lowers the limit to a fraction of the
// slots held (never below floor); after a calm interval it raises it by
// one, by doubling steps once calm lasts, up to max. Requests over the
// limit wait in the share's fair queue, so another client's go first.
type adaptLimit struct {
	max, floor int
	limit      int
	calm, hot  int // calm and contended intervals in a row
}

// newAdaptLimit returns the controller of max slots, starting at max, with
// a floor of two slots per CPU.
func newAdaptLimit(maxSlots, procs int) adaptLimit {
	return adaptLimit{max: maxSlots, floor: min(maxSlots, 2*procs), limit: maxSlots}
}

// next returns the limit after one interval, given whether the CPU was
// contended in it and the slots held at its end.
func (a *adaptLimit) next(busy bool, held int) int {
	if busy {
		a.calm = 0
		if a.hot++; a.hot >= adaptBusyRun {
			a.limit = max(a.floor, int(float64(min(a.limit, held))*adaptDecrease))
		}
		return a.limit
	}
	a.calm++
	a.hot = 0
	step := 1
	if a.calm > adaptCalmRun {
		step = 1 << min(a.calm-adaptCalmRun, 20)
	}
	a.limit = min(a.max, a.limit+step)
	return a.limit
}

// contended reports whether an interval was contended: enough of its
// sampled wake-ups (total) waited long for a CPU (slow), and as it ended
// more goroutines waited to run (runnable) than procs CPUs run.
func contended(slow, total, runnable uint64, procs int) bool {
	return total >= adaptMinWakes && float64(slow) > adaptBusyShare*float64(total) &&
		runnable >= uint64(adaptRunnable*procs)
}

// schedSignal reads the process's scheduler metrics: the histogram of how
// long goroutines waited for a CPU (/sched/latencies:seconds) and the
// goroutines waiting to run now.
type schedSignal struct {
	sample []metrics.Sample
	prev   []uint64
	cut    int // the first bucket whose lower bound is adaptSlowAfter or more
}

func newSchedSignal() *schedSignal {
	s := &schedSignal{sample: []metrics.Sample{{Name: "/sched/latencies:seconds"}, {Name: "/sched/goroutines/runnable:goroutines"}}}
	s.read()
	return s
}

// read returns the wake-ups sampled since the last read, how many of them
// waited longer than adaptSlowAfter, and the goroutines waiting to run.
func (s *schedSignal) read() (slow, total, runnable uint64) {
	metrics.Read(s.sample)
	if s.sample[1].Value.Kind() == metrics.KindUint64 {
		runnable = s.sample[1].Value.Uint64()
	}
	if s.sample[0].Value.Kind() != metrics.KindFloat64Histogram {
		return 0, 0, runnable
	}
	h := s.sample[0].Value.Float64Histogram()
	if len(s.prev) != len(h.Counts) {
		s.prev = make([]uint64, len(h.Counts))
		s.cut = len(h.Counts)
		for i := range h.Counts {
			if h.Buckets[i] >= adaptSlowAfter.Seconds() {
				s.cut = i
				break
			}
		}
		copy(s.prev, h.Counts)
		return 0, 0, runnable
	}
	for i, n := range h.Counts {
		d := n - s.prev[i]
		s.prev[i] = n
		total += d
		if i >= s.cut {
			slow += d
		}
	}
	return slow, total, runnable
}

// adapt moves the share's limit each tick while the share is busy; it
// stops once the limit is back at max and at most floor slots are held
// (acquire starts it again).
func (s *share) adapt() {
	sig := newSchedSignal()
	procs := runtime.GOMAXPROCS(0)
	t := time.NewTicker(adaptTick)
	defer t.Stop()
	for range t.C {
		slow, total, runnable := sig.read()
		busy := contended(slow, total, runnable, procs)
		s.mu.Lock()
		s.setLimit(s.ctl.next(busy, s.held))
		if s.limit == s.max && s.held <= s.ctl.floor {
			s.adapting = false
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
	}
}
