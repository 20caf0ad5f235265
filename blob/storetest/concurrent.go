package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// testViewSnapshot commits a change to two keys while a View is between
// its reads of them; the View must see both old values. A store that blocks
// writers during a View (the in-memory fake) passes as well: the writer then
// commits after the View.
func testViewSnapshot(t *testing.T, s engine.Store) {
	ctx := context.Background()
	put(t, s, "snap/a", "0", "snap/b", "0")
	done := make(chan error, 1)
	must(t, s.View(ctx, func(tx engine.Tx) error {
		a, err := tx.GetRaw("snap/a")
		if err != nil {
			return err
		}
		go func() {
			done <- s.Update(ctx, func(tx engine.Tx) error {
				if err := tx.PutRaw("snap/a", []byte("1")); err != nil {
					return err
				}
				return tx.PutRaw("snap/b", []byte("1"))
			})
		}()
		select {
		case err := <-done:
			done <- err
		case <-time.After(200 * time.Millisecond):
		}
		b, err := tx.GetRaw("snap/b")
		if err != nil {
			return err
		}
		a2, err := tx.GetRaw("snap/a")
		if err != nil {
			return err
		}
		if string(a) != "0" || string(b) != "0" || string(a2) != "0" {
			return fmt.Errorf("View saw a=%s b=%s a=%s, want its snapshot 0 0 0", a, b, a2)
		}
		return nil
	}))
	must(t, <-done)
	a, _ := getRaw(t, s, "snap/a")
	b, _ := getRaw(t, s, "snap/b")
	if a != "1" || b != "1" {
		t.Fatalf("after the Update: a=%s b=%s", a, b)
	}
}

type acct struct {
	N int `json:"n"`
}

// testSnapshotInvariant moves amounts between accounts in concurrent Updates
// while Views sum them; every View must see the total unchanged.
func testSnapshotInvariant(t *testing.T, s engine.Store) {
	ctx := context.Background()
	const accts, start, writers, moves = 5, 100, 4, 25
	must(t, s.Update(ctx, func(tx engine.Tx) error {
		for i := 0; i < accts; i++ {
			if err := tx.Put(fmt.Sprintf("acct/%d", i), acct{start}); err != nil {
				return err
			}
		}
		return nil
	}))
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, writers+2)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < moves; i++ {
				from, to := fmt.Sprintf("acct/%d", (w+i)%accts), fmt.Sprintf("acct/%d", (w+2*i+1)%accts)
				if from == to {
					continue
				}
				err := s.Update(ctx, func(tx engine.Tx) error {
					var a, b acct
					if err := tx.Get(from, &a); err != nil {
						return err
					}
					if err := tx.Get(to, &b); err != nil {
						return err
					}
					a.N, b.N = a.N-3, b.N+3
					if err := tx.Put(from, a); err != nil {
						return err
					}
					return tx.Put(to, b)
				})
				// A store may give up under contention; it must then write nothing.
				if err != nil && engine.ErrorCode(err) != engine.CodeUnavailable {
					errs <- err
					return
				}
			}
		}()
	}
	var rwg sync.WaitGroup
	for r := 0; r < 2; r++ {
		rwg.Add(1)
		go func() {
			defer rwg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				err := s.View(ctx, func(tx engine.Tx) error {
					sum := 0
					err := tx.Scan("acct/", "", func(k string, v []byte) error {
						var a acct
						if err := tx.Get(k, &a); err != nil {
							return err
						}
						sum += a.N
						return nil
					})
					if err == nil && sum != accts*start {
						err = fmt.Errorf("a View summed %d, want %d", sum, accts*start)
					}
					return err
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	rwg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// testConcurrentIncrements runs read-modify-write Updates of one key from
// many goroutines; every Update that returned nil must be counted.
func testConcurrentIncrements(t *testing.T, s engine.Store) {
	ctx := context.Background()
	const workers, each = 8, 25
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, failed := 0, 0
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				err := s.Update(ctx, func(tx engine.Tx) error {
					var c acct
					if err := tx.Get("ctr", &c); err != nil && !errors.Is(err, engine.ErrNotFound) {
						return err
					}
					c.N++
					return tx.Put("ctr", c)
				})
				mu.Lock()
				if err == nil {
					ok++
				} else {
					failed++
					t.Errorf("increment: %v", err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	var c acct
	must(t, s.View(ctx, func(tx engine.Tx) error { return tx.Get("ctr", &c) }))
	if c.N != ok {
		t.Fatalf("counter = %d after %d successful increments (%d failed): updates were lost", c.N, ok, failed)
	}
}

// testNoWriteSkew: each Update takes one doctor off call only when at least
// two are on call, reading every doctor's key and writing its own. Run
// concurrently, a store that only guards the keys it writes (snapshot
// isolation) can take the last two off together; a serializable one keeps
// one on call.
func testNoWriteSkew(t *testing.T, s engine.Store) {
	ctx := context.Background()
	const doctors, rounds = 4, 10
	for r := 0; r < rounds; r++ {
		prefix := fmt.Sprintf("oncall/%d/", r)
		must(t, s.Update(ctx, func(tx engine.Tx) error {
			for d := 0; d < doctors; d++ {
				if err := tx.PutRaw(fmt.Sprintf("%s%d", prefix, d), []byte("1")); err != nil {
					return err
				}
			}
			return nil
		}))
		var wg sync.WaitGroup
		for d := 0; d < doctors; d++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := s.Update(ctx, func(tx engine.Tx) error {
					on := 0
					for o := 0; o < doctors; o++ {
						v, err := tx.GetRaw(fmt.Sprintf("%s%d", prefix, o))
						if err != nil {
							return err
						}
						if string(v) == "1" {
							on++
						}
					}
					if on < 2 {
						return nil
					}
					return tx.PutRaw(fmt.Sprintf("%s%d", prefix, d), []byte("0"))
				})
				if err != nil && engine.ErrorCode(err) != engine.CodeUnavailable {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		left := 0
		for d := 0; d < doctors; d++ {
			if v, _ := getRaw(t, s, fmt.Sprintf("%s%d", prefix, d)); v == "1" {
				left++
			}
		}
		if left != 1 {
			t.Fatalf("round %d: %d doctors left on call, want exactly 1 (write skew)", r, left)
		}
	}
}
