package server_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/app"
	"github.com/hearth-dev/hearth/server/servertest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// feedBound is how long a test waits for a node to apply another node's
// change: the feed's lag is milliseconds, the bound is generous for a
// loaded machine.
const feedBound = 30 * time.Second

// eventually polls cond until it holds or feedBound passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(feedBound); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, feedBound)
		}
	}
}

// waitFresh waits until the node's change feed is connected and current,
// so that what it reads next is cached.
func waitFresh(t *testing.T, n *servertest.Server) {
	t.Helper()
	eventually(t, "node fresh", n.App.Cluster.Fresh)
}

func lastUpstream(up *fake.Server) fake.Request {
	reqs := up.Requests()
	return reqs[len(reqs)-1]
}

// TestClusterCachesFollowFeed: each node caches keys, pipes, provider keys
// and budget lists, and drops what another node changed once the change
// feed delivers it: a revoked key, a rotated pipe key, a pipe update, a
// keyset change and a new budget all take effect on the other node.
func TestClusterCachesFollowFeed(t *testing.T) {
	up := fake.NewOpenAI()
	defer up.Close()
	nodes := servertest.StartCluster(t, 2, servertest.WithProvider("openai", up.BaseURL(), "sk-server"))
	a, b := nodes[0], nodes[1]
	waitFresh(t, b)
	user := a.UserWithKey("carol")
	msgs := []map[string]string{{"role": "user", "content": "hi"}}
	run := func(n *servertest.Server, key string, body map[string]any) *servertest.Response {
		body["messages"], body["stream"] = msgs, false
		return n.Do("POST", "/v1/pipes/run", key, body)
	}

	// A key revoked on A is refused on B, which had it cached.
	var created struct {
		Key  string `json:"key"`
		Info struct {
			ID string `json:"id"`
		} `json:"info"`
	}
	r := a.Do("POST", "/v1/keys", user, map[string]any{"name": "temp"})
	mustStatus(t, r, 200)
	r.JSON(t, &created)
	mustStatus(t, b.Do("GET", "/v1/pipes", created.Key, nil), 200)
	mustStatus(t, a.Do("DELETE", "/v1/keys/"+created.Info.ID, user, nil), 200)
	eventually(t, "revoked key refused on B", func() bool { return b.Do("GET", "/v1/pipes", created.Key, nil).Status == 401 })

	// A pipe updated on A runs with its new model on B.
	r = a.Do("POST", "/v1/pipes", user, map[string]any{"name": "p", "model": "openai:gpt-4o-mini"})
	mustStatus(t, r, 200)
	var pipe map[string]any
	r.JSON(t, &pipe)
	pipeKey, _ := pipe["api_key"].(string)
	mustStatus(t, run(b, user, map[string]any{"name": "p"}), 200)
	mustStatus(t, a.Do("POST", "/v1/pipes/p", user, map[string]any{"model": "openai:gpt-4o"}), 200)
	eventually(t, "pipe update used on B", func() bool {
		mustStatus(t, run(b, user, map[string]any{"name": "p"}), 200)
		return lastUpstream(up).JSON()["model"] == "gpt-4o"
	})

	// A pipe key rotated on A: the old key is refused on B, the new works.
	mustStatus(t, run(b, pipeKey, map[string]any{}), 200)
	r = a.Do("POST", "/v1/pipes/p/keys", user, nil)
	mustStatus(t, r, 200)
	var rot map[string]any
	r.JSON(t, &rot)
	newKey, _ := rot["api_key"].(string)
	eventually(t, "rotated pipe key refused on B", func() bool { return run(b, pipeKey, map[string]any{}).Status == 401 })
	mustStatus(t, run(b, newKey, map[string]any{}), 200)

	// A provider key set on A is used by B's runs, which cached the
	// server's key; then a change of it too.
	mustStatus(t, run(b, user, map[string]any{"name": "p"}), 200)
	for _, k := range []string{"sk-carol-first-0001", "sk-carol-second-002"} {
		mustStatus(t, a.Do("PUT", "/v1/keysets/openai", user, map[string]string{"key": k}), 200)
		eventually(t, "keyset "+k+" used on B", func() bool {
			mustStatus(t, run(b, user, map[string]any{"name": "p"}), 200)
			return lastUpstream(up).Header.Get("Authorization") == "Bearer "+k
		})
	}

	// A budget set on A refuses on B, which had cached "no budget".
	r = a.Do("POST", "/v1/budgets", user, map[string]any{"period": "day", "limit_tokens": 1})
	mustStatus(t, r, 200)
	eventually(t, "budget applied on B", func() bool {
		s := run(b, user, map[string]any{"name": "p"}).Status
		if s != 200 && s != http.StatusTooManyRequests {
			t.Fatalf("run on B under a budget: %d", s)
		}
		return s == http.StatusTooManyRequests
	})
}

// TestClusterFeedGapDropsCaches: a node whose change feed dropped does not
// serve what it cached before: a key deleted behind the feed's back (a
// change the node never hears of, as when it misses events) is served from
// B's cache while the feed is current, and refused once B's feed
// reconnected, because a reconnect drops every cache.
func TestClusterFeedGapDropsCaches(t *testing.T) {
	up := fake.NewOpenAI()
	defer up.Close()
	url := servertest.DatabaseURL(t)
	nodes := servertest.StartNodes(t, url, 2, servertest.WithProvider("openai", up.BaseURL(), "sk-server"))
	a, b := nodes[0], nodes[1]
	user := a.UserWithKey("dave")
	waitFresh(t, b)
	mustStatus(t, b.Do("GET", "/v1/pipes", user, nil), 200)

	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// Every key's hash index, deleted without a change in the feed.
	var deleted int64
	if err := conn.QueryRow(ctx, `WITH d AS (DELETE FROM hearth_kv WHERE k >= 'apikeyhash/'::bytea AND k < 'apikeyhash0'::bytea RETURNING 1)
		SELECT count(*) FROM d`).Scan(&deleted); err != nil {
		t.Fatal(err)
	}
	if deleted == 0 {
		t.Fatal("no key hash rows to delete")
	}
	fresh := b.App.Cluster.Fresh()
	s := b.Do("GET", "/v1/pipes", user, nil).Status
	if fresh && b.App.Cluster.Fresh() && s != 200 {
		t.Fatalf("fresh node B did not serve the cached key: %d (is its cache off?)", s)
	}
	// Drop every feed connection; B must then forget its cache. Once both
	// nodes listen again on new connections and B is fresh again, B has
	// seen the failure and read the feed since: it must refuse the key.
	var killed []int32
	rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity, pg_terminate_backend(pid)
		WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`)
	if err == nil {
		killed, err = pgx.CollectRows(rows, pgx.RowTo[int32])
	}
	if err != nil || len(killed) != 2 {
		t.Fatalf("terminate the feed listeners: %v %v", killed, err)
	}
	eventually(t, "both nodes listening again", func() bool {
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND query LIKE 'LISTEN%' AND pid <> ALL($1)`, killed).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 2
	})
	waitFresh(t, b)
	if r := b.Do("GET", "/v1/pipes", user, nil); r.Status != 401 {
		t.Fatalf("B served a key from before its feed reconnected: %d", r.Status)
	}
}

// TestClusterPoolSize: a node's pool of connections is DatabaseMaxConns
// (HEARTH_DATABASE_MAX_CONNS) when set, else the default.
func TestClusterPoolSize(t *testing.T) {
	url := servertest.DatabaseURL(t)
	plain := servertest.StartNodes(t, url, 1)[0]
	sized := servertest.StartNodes(t, url, 1, func(c *app.Config) { c.DatabaseMaxConns = 3 })[0]
	for _, c := range []struct {
		n    *servertest.Server
		want int32
	}{{plain, app.DefaultPoolConns}, {sized, 3}} {
		p, ok := c.n.App.Store.(interface{ Pool() *pgxpool.Pool })
		if !ok {
			t.Fatalf("store %T has no pool", c.n.App.Store)
		}
		if got := p.Pool().Config().MaxConns; got != c.want {
			t.Errorf("MaxConns %d, want %d", got, c.want)
		}
	}
}
