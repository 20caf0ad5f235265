package postgres

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/blob/postgres/pgtest"
	"github.com/hearth-dev/hearth/engine"
)

func openCluster(t *testing.T, s *Store, opts ClusterOptions) *Cluster {
	t.Helper()
	c, err := NewCluster(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestClusterLocks: a lock held by one node is refused to another until
// released, and a node's lock dies with its connections.
func TestClusterLocks(t *testing.T) {
	url := pgtest.URL(t)
	a := openCluster(t, openURL(t, url, Options{}), ClusterOptions{})
	bs := openURL(t, url, Options{})
	b := openCluster(t, bs, ClusterOptions{})
	ctx := context.Background()
	if !a.Shared() || a.Node() == b.Node() {
		t.Fatalf("Shared %v, nodes %q %q", a.Shared(), a.Node(), b.Node())
	}
	release, ok, err := a.TryLock(ctx, "sweep")
	if err != nil || !ok {
		t.Fatalf("first TryLock: %v %v", ok, err)
	}
	if _, ok, err := b.TryLock(ctx, "sweep"); err != nil || ok {
		t.Fatalf("second node took a held lock: %v %v", ok, err)
	}
	if rel, ok, err := b.TryLock(ctx, "other"); err != nil || !ok {
		t.Fatalf("another name: %v %v", ok, err)
	} else {
		rel()
	}
	release()
	release() // twice is harmless
	relB, ok, err := b.TryLock(ctx, "sweep")
	if err != nil || !ok {
		t.Fatalf("after release: %v %v", ok, err)
	}
	t.Cleanup(relB) // a failure below must not leave the connection held (Close waits for it)
	// The holder's connection dies (as with a killed node): the lock goes.
	// Only the "sweep" lock's holder is terminated: the clusters' own
	// maintenance may hold other advisory locks at this moment. A bigint
	// key is stored as classid (high 32 bits) and objid (low), objsubid 1.
	id := uint64(lockID("sweep"))
	var killed int
	if err := a.s.pool.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_locks
		WHERE locktype = 'advisory' AND granted AND objsubid = 1
		AND classid::bigint = $1 AND objid::bigint = $2`, int64(id>>32), int64(id&0xffffffff)).Scan(&killed); err != nil || killed != 1 {
		t.Fatalf("terminate the holder: %d, %v", killed, err)
	}
	// pg_terminate_backend only signals the backend; its locks go when it
	// has exited, so the lock is awaited rather than expected at once.
	for deadline := time.Now().Add(30 * time.Second); ; {
		rel, ok, err := a.TryLock(ctx, "sweep")
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			rel()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the lock of a terminated connection is still held after 30 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	relB() // unlocking on a dead connection closes it instead
	if rel, ok, err := b.TryLock(ctx, "sweep"); err != nil || !ok {
		t.Fatalf("b after its connection died: %v %v", ok, err)
	} else {
		rel()
	}
}

// TestClusterPublishSubscribe: a change published in an Update on one node
// reaches the subscribers of its topic on another; a rolled-back one never
// does; changes from before the cluster started are not replayed.
func TestClusterPublishSubscribe(t *testing.T) {
	url := pgtest.URL(t)
	as := openURL(t, url, Options{})
	a := openCluster(t, as, ClusterOptions{})
	ctx := context.Background()
	publish := func(topic, key string, fail bool) {
		err := as.Update(ctx, func(tx engine.Tx) error {
			if err := a.Publish(tx, topic, key); err != nil {
				return err
			}
			if fail {
				return engine.Errorf(engine.CodeConflict, "roll back")
			}
			return nil
		})
		if (err != nil) != fail {
			t.Fatal(err)
		}
	}
	publish("key", "before", false)
	b := openCluster(t, openURL(t, url, Options{}), ClusterOptions{Follow: FollowOptions{Poll: 50 * time.Millisecond}})
	got := make(chan string, 16)
	b.Subscribe("key", func(k string) { got <- "key:" + k })
	b.Subscribe("pipe", func(k string) { got <- "pipe:" + k })
	publish("key", "rolled-back", true)
	publish("key", "key_1", false)
	publish("job", "ignored", false)
	publish("pipe", "alice/p", false)
	want := []string{"key:key_1", "pipe:alice/p"}
	for _, w := range want {
		select {
		case g := <-got:
			if g != w {
				t.Fatalf("got %q, want %q", g, w)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no change %q within 5s", w)
		}
	}
	select {
	case g := <-got:
		t.Fatalf("unexpected change %q", g)
	case <-time.After(200 * time.Millisecond):
	}
}

// TestClusterCount: counters add up across nodes within a window, a new
// window starts from zero, and Maintain deletes expired rows and old feed
// rows.
func TestClusterCount(t *testing.T) {
	url := pgtest.URL(t)
	as := openURL(t, url, Options{})
	a := openCluster(t, as, ClusterOptions{KeepChanges: time.Millisecond})
	b := openCluster(t, openURL(t, url, Options{}), ClusterOptions{})
	ctx := context.Background()
	const window = time.Hour
	var wg sync.WaitGroup
	for _, c := range []*Cluster{a, b} {
		for i := 0; i < 10; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := c.Count(ctx, "rate/key_1", window, 2); err != nil {
					t.Error(err)
				}
			}()
		}
	}
	wg.Wait()
	if n, err := a.Count(ctx, "rate/key_1", window, 0); err != nil || n != 40 {
		t.Fatalf("total %d, %v; want 40", n, err)
	}
	if n, err := b.Count(ctx, "rate/other", window, 1); err != nil || n != 1 {
		t.Fatalf("other key %d, %v", n, err)
	}
	// A 50 ms window: after it ends the count restarts.
	if _, err := a.Count(ctx, "short", 50*time.Millisecond, 5); err != nil {
		t.Fatal(err)
	}
	time.Sleep(120 * time.Millisecond)
	if n, err := a.Count(ctx, "short", 50*time.Millisecond, 1); err != nil || n != 1 {
		t.Fatalf("new window %d, %v; want 1", n, err)
	}
	if err := as.Update(ctx, func(tx engine.Tx) error { return a.Publish(tx, "key", "x") }); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	// The first "short" window ended more than a window ago, so its row has
	// expired; whether the second has too depends on how long this took, so
	// the test counts expired rows rather than rows.
	expired := func() (counters, changes int) {
		t.Helper()
		if err := as.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM hearth_counters WHERE key = 'short' AND expires_at < now()), (SELECT count(*) FROM hearth_changes)`).Scan(&counters, &changes); err != nil {
			t.Fatal(err)
		}
		return counters, changes
	}
	if counters, changes := expired(); counters == 0 || changes == 0 {
		t.Fatalf("before Maintain: %d expired rows of the short counter, %d feed rows (want some of each)", counters, changes)
	}
	if err := a.Maintain(ctx); err != nil {
		t.Fatal(err)
	}
	if counters, changes := expired(); counters != 0 || changes != 0 {
		t.Fatalf("after Maintain: %d expired rows of the short counter, %d feed rows (want 0 and 0)", counters, changes)
	}
	if n, _ := a.Count(ctx, "rate/key_1", window, 0); n != 40 {
		t.Fatalf("Maintain deleted a live counter: %d", n)
	}
}

// TestClusterFeedReconnect: when the feed connection drops, the node stops
// reporting Fresh, subscribers are told to reload (key "") before it is
// fresh again, and later changes still arrive.
func TestClusterFeedReconnect(t *testing.T) {
	url := pgtest.URL(t)
	as := openURL(t, url, Options{})
	a := openCluster(t, as, ClusterOptions{Follow: FollowOptions{Poll: 50 * time.Millisecond}, StaleAfter: time.Hour})
	type call struct {
		key   string
		fresh bool
	}
	got := make(chan call, 16)
	a.Subscribe("pipe", func(k string) { got <- call{k, a.Fresh()} })
	ctx := context.Background()
	for deadline := time.Now().Add(10 * time.Second); !a.Fresh(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("not fresh 10s after start")
		}
	}
	// The feed reader connects in the background: wait for its LISTEN.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var killed int
		if err := as.pool.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`).Scan(&killed); err != nil {
			t.Fatal(err)
		}
		if killed == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no feed listener to terminate")
		}
	}
	wait := func(want string) {
		t.Helper()
		select {
		case c := <-got:
			if c.key != want {
				t.Fatalf("got %q, want %q", c.key, want)
			}
			if c.key == "" && c.fresh {
				t.Fatal("told to reload while reporting Fresh: a cache could serve what the feed missed")
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no %q within 10s", want)
		}
	}
	wait("")
	if err := as.Update(ctx, func(tx engine.Tx) error { return a.Publish(tx, "pipe", "alice/p") }); err != nil {
		t.Fatal(err)
	}
	wait("alice/p")
	if !a.Fresh() {
		t.Fatal("not fresh after the feed delivered again")
	}
}

// TestCloseReleasesHeldLocks: a node shutting down while singleton work
// still holds a cluster lock closes anyway (after a grace period) and frees
// the lock for the other nodes; the holder's late release is harmless.
func TestCloseReleasesHeldLocks(t *testing.T) {
	url := pgtest.URL(t)
	as := openURL(t, url, Options{})
	a := openCluster(t, as, ClusterOptions{})
	b := openCluster(t, openURL(t, url, Options{}), ClusterOptions{})
	ctx := context.Background()
	release, ok, err := a.TryLock(ctx, "sweep")
	if err != nil || !ok {
		t.Fatalf("TryLock: %v %v", ok, err)
	}
	closed := make(chan struct{})
	go func() { as.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(closeGrace + 30*time.Second):
		t.Fatal("Close still waits for a held cluster lock")
	}
	rel, ok, err := b.TryLock(ctx, "sweep")
	if err != nil || !ok {
		t.Fatalf("lock of a closed node still held: %v %v", ok, err)
	}
	rel()
	release() // the holder's own release after Close does nothing
}
