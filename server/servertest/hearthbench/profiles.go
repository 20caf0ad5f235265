package main

import (
	"context"
	"errors"
	"os"
	"runtime"
	"runtime/pprof"
)

// profileFiles names the profiles a run writes ("" skips one).
type profileFiles struct {
	CPU, Mem, Block, Mutex string
}

// Profile labels: the benchmark's own work (generating documents, the
// upload clients, the gateway's clients) runs under labelRole "bench";
// in the gateway section the fake upstream (its listener and
// connections) runs under "upstream" and the Hearth server under
// "hearth" (its connections, its workers, its upstream connections). So
// `go tool pprof -tagfocus role=hearth` is the gateway's Hearth alone,
// `-tagfocus role=bench` the clients, `-tagfocus role=upstream` the
// fake, and the samples with no role are the Go runtime's own work (GC
// workers, the scheduler) and, in the other sections, the server, whose
// profile is then `-tagignore role=bench`. Goroutines started under a
// label inherit it.
const labelRole = "role"

// asBench runs f with the benchmark's profile label.
func asBench(f func()) { asRole("bench", f) }

// asRole runs f with the profile label role=value.
func asRole(value string, f func()) {
	pprof.Do(context.Background(), pprof.Labels(labelRole, value), func(context.Context) { f() })
}

// startProfiles starts the CPU profile (when files.CPU names a file) and
// the block and mutex sampling, and returns the function that stops them
// and writes the allocation, blocking and mutex profiles. Read them with
// `go tool pprof -top`; -sample_index=alloc_space or alloc_objects for
// the allocation profile, -sample_index=delay for blocking and mutex.
func startProfiles(files profileFiles) (stop func() error, err error) {
	var cf *os.File
	if files.Mem != "" {
		// Sample an allocation every 4 KiB instead of 512 KiB: small
		// per-request allocations show with their real counts.
		runtime.MemProfileRate = 4096
	}
	if files.Block != "" {
		// One sample per 10 µs blocked: short lock waits still show, at a
		// cost the run can carry.
		runtime.SetBlockProfileRate(10_000)
	}
	if files.Mutex != "" {
		runtime.SetMutexProfileFraction(5)
	}
	if files.CPU != "" {
		if cf, err = os.Create(files.CPU); err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(cf); err != nil {
			cf.Close()
			return nil, err
		}
	}
	return func() error {
		var errs []error
		if cf != nil {
			pprof.StopCPUProfile()
			errs = append(errs, cf.Close())
		}
		for _, p := range []struct{ file, name string }{{files.Mem, "allocs"}, {files.Block, "block"}, {files.Mutex, "mutex"}} {
			if p.file != "" {
				errs = append(errs, writeProfile(p.file, p.name))
			}
		}
		return errors.Join(errs...)
	}, nil
}

func writeProfile(file, name string) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := pprof.Lookup(name).WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
