package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/blob/postgres/pgtest"
	"github.com/hearth-dev/hearth/engine"
)

// TestFeedSkipsNoChange: writers on two nodes commit changes in an order
// unlike the order they took their sequence numbers (each holds its
// transaction open a little after publishing), a fifth of them roll back,
// and a reader pages through the feed meanwhile. It must see every
// committed change exactly once and no rolled-back one.
func TestFeedSkipsNoChange(t *testing.T) {
	url := pgtest.URL(t)
	nodes := []*Store{openURL(t, url, Options{}), openURL(t, url, Options{})}
	ctx := context.Background()
	const writers, each = 8, 40
	var mu sync.Mutex
	committed := map[string]bool{}
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			node := nodes[w%2]
			for i := 0; i < each; i++ {
				key := fmt.Sprintf("doc/%d/%d", w, i)
				abort := i%5 == 0
				err := node.Update(ctx, func(tx engine.Tx) error {
					if err := tx.PutRaw(key, []byte("x")); err != nil {
						return err
					}
					if err := Publish(tx, "docs", key); err != nil {
						return err
					}
					time.Sleep(time.Duration(rand.N(3000)) * time.Microsecond)
					if abort {
						return errAbort
					}
					return nil
				})
				if err != nil && !errors.Is(err, errAbort) {
					t.Error(err)
					return
				}
				if err == nil {
					mu.Lock()
					committed[key] = true
					mu.Unlock()
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	seen := map[string]int{}
	var pos Position
	finished := false
	for {
		select {
		case <-done:
			finished = true
		default:
		}
		changes, next, pending, err := nodes[1].Changes(ctx, pos, 7)
		if err != nil {
			t.Fatal(err)
		}
		if next.less(pos) {
			t.Fatalf("position went back from %v to %v", pos, next)
		}
		for _, c := range changes {
			seen[c.Key]++
		}
		pos = next
		if finished && len(changes) == 0 && !pending {
			break
		}
	}
	for key := range committed {
		if seen[key] != 1 {
			t.Errorf("committed change %s seen %d times", key, seen[key])
		}
	}
	for key, n := range seen {
		if !committed[key] {
			t.Errorf("change %s of a rolled-back transaction seen %d times", key, n)
		}
	}
	if len(committed) != writers*each*4/5 {
		t.Fatalf("%d changes committed, want %d", len(committed), writers*each*4/5)
	}
}

var errAbort = errors.New("abort")

// TestFollowWakesAndResumes: a write wakes a follower long before its poll
// interval (NOTIFY), and following again from the position handed back
// delivers only what came after.
func TestFollowWakesAndResumes(t *testing.T) {
	s := openURL(t, pgtest.URL(t), Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	publish := func(key string) {
		t.Helper()
		if err := s.Update(ctx, func(tx engine.Tx) error { return Publish(tx, "t", key) }); err != nil {
			t.Fatal(err)
		}
	}
	type batch struct {
		changes []Change
		next    Position
	}
	follow := func(from Position) (<-chan batch, <-chan error) {
		got, errc := make(chan batch, 16), make(chan error, 1)
		fctx, fcancel := context.WithCancel(ctx)
		t.Cleanup(fcancel)
		go func() {
			errc <- s.Follow(fctx, from, FollowOptions{Poll: time.Hour}, func(c []Change, next Position) error {
				if len(c) > 0 {
					got <- batch{c, next}
				}
				return nil
			})
		}()
		return got, errc
	}
	wait := func(got <-chan batch) batch {
		t.Helper()
		select {
		case b := <-got:
			return b
		case <-time.After(30 * time.Second):
			t.Fatal("no change delivered: the notification did not wake the follower")
			return batch{}
		}
	}
	publish("before")
	got, _ := follow(Position{})
	if b := wait(got); len(b.changes) != 1 || b.changes[0].Key != "before" {
		t.Fatalf("first batch %+v", b.changes)
	}
	publish("woken")
	b := wait(got)
	if len(b.changes) != 1 || b.changes[0].Key != "woken" {
		t.Fatalf("second batch %+v", b.changes)
	}
	publish("after")
	again, errc := follow(b.next)
	if b := wait(again); len(b.changes) != 1 || b.changes[0].Key != "after" {
		t.Fatalf("resumed follower got %+v, want only the change after its position", b.changes)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Follow ended with %v, want context.Canceled", err)
	}
}

func TestTrimChanges(t *testing.T) {
	s := openURL(t, pgtest.URL(t), Options{})
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if err := s.Update(ctx, func(tx engine.Tx) error { return Publish(tx, "t", fmt.Sprint(i)) }); err != nil {
			t.Fatal(err)
		}
	}
	changes, _, _, err := s.Changes(ctx, Position{}, 2)
	if err != nil || len(changes) != 2 {
		t.Fatalf("changes %v, %v", changes, err)
	}
	if n, err := s.TrimChanges(ctx, changes[1].Pos); err != nil || n != 1 {
		t.Fatalf("trim deleted %d, %v; want 1", n, err)
	}
	rest, _, _, err := s.Changes(ctx, Position{}, 10)
	if err != nil || len(rest) != 2 || rest[0].Key != "1" {
		t.Fatalf("after trim: %+v, %v", rest, err)
	}
	err = s.View(ctx, func(tx engine.Tx) error { return Publish(tx, "t", "x") })
	if err == nil {
		t.Fatal("Publish inside View succeeded")
	}
}
