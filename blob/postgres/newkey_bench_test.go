package postgres

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/blob/postgres/pgtest"
	"github.com/hearth-dev/hearth/engine"
)

// BenchmarkSetNew measures what PostgreSQL spends (its backend's CPU time,
// from /proc/<pid>/schedstat, so the load of other work on the machine
// weighs less than in a timing) on the rows of stored pipe runs written
// with Put (upserts) and with SetNew (plain inserts), alternating: a
// group commit of 4 new threads (index entry, two messages, record each)
// and a batch of 32 run records with their per-pipe index entries.
// Metrics: backend µs per run of each kind.
func BenchmarkSetNew(b *testing.B) {
	s := openURL(b, pgtest.URL(b), Options{MaxConns: 1})
	ctx := context.Background()
	var pid int
	if err := s.pool.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		b.Fatal(err)
	}
	if _, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid)); err != nil {
		b.Skipf("no schedstat for the backend: %v", err)
	}
	msg := bytes.Repeat([]byte{'m'}, 300)
	run := bytes.Repeat([]byte{'r'}, 450)
	thread := bytes.Repeat([]byte{'t'}, 250)
	seq := 0
	write := func(setNew bool) error {
		return s.Update(ctx, func(tx engine.Tx) error {
			set := func(k string, v []byte) error {
				if setNew {
					return tx.(engine.NewKeySetter).SetNew([]byte(k), v)
				}
				return tx.PutRaw(k, v)
			}
			for range 4 {
				seq++
				id := fmt.Sprintf("%019d-%08d", time.Now().UnixNano(), seq)
				for _, kv := range []struct {
					k string
					v []byte
				}{{"threadidx/owner/" + id, []byte(`""`)}, {"msg/" + id + "/0000000000000000", msg}, {"msg/" + id + "/0000000000000001", msg}, {"thread/owner/" + id, thread}} {
					if err := set(kv.k, kv.v); err != nil {
						return err
					}
				}
			}
			return nil
		})
	}
	batch := func(setNew bool) error {
		return s.Update(ctx, func(tx engine.Tx) error {
			for range 32 {
				seq++
				id := fmt.Sprintf("%019d%08d", 1<<62-time.Now().UnixNano(), seq)
				if setNew {
					if err := tx.(engine.NewKeySetter).SetNew([]byte("run/owner/"+id), run); err != nil {
						return err
					}
					if err := tx.(engine.NewKeySetter).SetNew([]byte("runpipe/owner/3f1c2a4e-9b7d-4c1e-8f2a-1b2c3d4e5f60/"+id), nil); err != nil {
						return err
					}
					continue
				}
				if err := tx.PutRaw("run/owner/"+id, run); err != nil {
					return err
				}
				if err := tx.PutRaw("runpipe/owner/3f1c2a4e-9b7d-4c1e-8f2a-1b2c3d4e5f60/"+id, nil); err != nil {
					return err
				}
			}
			return nil
		})
	}
	var cpu [2][2]time.Duration // [setNew][threads, runs]
	var n [2][2]int
	for i := 0; i < b.N; i++ {
		for mode := range 2 {
			before := schedTime(b, pid)
			if err := write(mode == 1); err != nil {
				b.Fatal(err)
			}
			mid := schedTime(b, pid)
			if err := batch(mode == 1); err != nil {
				b.Fatal(err)
			}
			cpu[mode][0] += mid - before
			cpu[mode][1] += schedTime(b, pid) - mid
			n[mode][0] += 4
			n[mode][1] += 32
		}
	}
	for mode, name := range []string{"put", "setnew"} {
		b.ReportMetric(float64(cpu[mode][0].Microseconds())/float64(n[mode][0]), "db-µs/thread-"+name)
		b.ReportMetric(float64(cpu[mode][1].Microseconds())/float64(n[mode][1]), "db-µs/run-"+name)
	}
}

// schedTime is the CPU time a process has run so far (/proc/<pid>/schedstat).
func schedTime(b *testing.B, pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
	if err != nil {
		b.Fatal(err)
	}
	ns, err := strconv.ParseInt(strings.Fields(string(raw))[0], 10, 64)
	if err != nil {
		b.Fatal(err)
	}
	return time.Duration(ns)
}
