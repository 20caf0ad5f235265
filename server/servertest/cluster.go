package servertest

import (
	"io"
	"sync"
	"testing"

	"github.com/hearth-dev/hearth/blob/postgres/pgtest"
	"github.com/hearth-dev/hearth/server/app"
)

// WithDatabase runs the server in cluster mode on the PostgreSQL database
// at url (its data dir then only holds the node's caches).
func WithDatabase(url string) Option {
	return func(c *app.Config) { c.DatabaseURL = url }
}

// DatabaseURL returns the URL of a fresh, empty PostgreSQL database on the
// test binary's throwaway PostgreSQL server (package pgtest), dropped when
// the test ends. It skips the test when PostgreSQL is not installed, and
// fails it instead under CI=true.
func DatabaseURL(t testing.TB) string {
	t.Helper()
	return pgtest.URL(t)
}

// StartCluster starts n nodes in cluster mode on one fresh PostgreSQL
// database, each with its own data dir and URL, as several `hearth serve`
// processes behind a load balancer would run. opts apply to every node.
func StartCluster(t testing.TB, n int, opts ...Option) []*Server {
	t.Helper()
	return StartNodes(t, DatabaseURL(t), n, opts...)
}

// StartNodes starts n nodes in cluster mode on the database at url.
func StartNodes(t testing.TB, url string, n int, opts ...Option) []*Server {
	t.Helper()
	nodes := make([]*Server, n)
	for i := range nodes {
		nodes[i] = Start(t, append([]Option{WithDatabase(url)}, opts...)...)
	}
	return nodes
}

// closeCluster closes the node's cluster (feed reader, maintenance loop)
// when it has one to close.
func (s *Server) closeCluster() {
	if c, ok := s.App.Cluster.(io.Closer); ok {
		c.Close()
	}
}

var (
	clusterDBsMu sync.Mutex
	clusterDBs   = map[string]string{}
)

// clusterDB is the database of the node on data dir dir: one per dir, so a
// restart on the same dir finds its data again.
func clusterDB(t testing.TB, dir string) string {
	clusterDBsMu.Lock()
	defer clusterDBsMu.Unlock()
	if u, ok := clusterDBs[dir]; ok {
		return u
	}
	u := pgtest.URL(t)
	clusterDBs[dir] = u
	return u
}
