// Package pgtest gives tests a throwaway PostgreSQL: one cluster per test
// binary, started from the installed server binaries (initdb and postgres
// from /usr/lib/postgresql/<version>/bin, Debian's postgresql package) in a
// temporary directory on a free loopback port, and a fresh database per
// test. No PostgreSQL service has to be running.
//
// A package that uses it calls Main from its TestMain so the cluster stops
// when the tests end. Without the binaries, tests skip with a message, or
// fail when CI is set.
package pgtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
)

var (
	once    sync.Once
	shared  *Cluster
	openErr error
	dbSeq   atomic.Int64
)

// Main runs the package's tests and stops the shared cluster, if one was
// started, before exiting. Call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	if shared != nil {
		if err := shared.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
		}
	}
	os.Exit(code)
}

// BinDir returns the directory of the newest installed PostgreSQL server
// binaries (version 15 or later), or "" when there is none.
func BinDir() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	type cand struct {
		dir string
		ver int
	}
	var cs []cand
	for _, d := range dirs {
		ver, err := strconv.Atoi(filepath.Base(filepath.Dir(d)))
		if err != nil || ver < 15 {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			cs = append(cs, cand{d, ver})
		}
	}
	if len(cs) == 0 {
		return ""
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].ver > cs[j].ver })
	return cs[0].dir
}

// URL returns the connection URL of a new, empty database on the shared
// cluster; the database is dropped when t ends. Its default collation is
// ICU en-US when the server supports it, so code that relies on the
// collation for byte order fails here as it would on a typical install.
func URL(t testing.TB) string {
	t.Helper()
	c := Shared(t)
	name := fmt.Sprintf("hearth_t%d", dbSeq.Add(1))
	ctx := context.Background()
	if err := c.exec(ctx, "CREATE DATABASE "+name+" TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'"); err != nil {
		if err := c.exec(ctx, "CREATE DATABASE "+name+" TEMPLATE template0"); err != nil {
			t.Fatalf("pgtest: create database: %v", err)
		}
	}
	t.Cleanup(func() {
		if err := c.exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: drop database: %v", err)
		}
	})
	return c.url(name)
}

// Shared returns the cluster of this test binary, starting it on first use.
// It skips t when PostgreSQL is not installed (fails it when CI is set) and
// fails t when the cluster cannot start.
func Shared(t testing.TB) *Cluster {
	t.Helper()
	bin := BinDir()
	if bin == "" {
		msg := "pgtest: no PostgreSQL 15+ binaries in /usr/lib/postgresql/*/bin (apt-get install postgresql)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	once.Do(func() { shared, openErr = Start(bin) })
	if openErr != nil {
		t.Fatalf("pgtest: %v", openErr)
	}
	return shared
}

func (c *Cluster) exec(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, c.url("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

func (c *Cluster) url(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.Port, db)
}

func tail(path string) string {
	b, _ := os.ReadFile(path)
	s := strings.TrimSpace(string(b))
	if len(s) > 2000 {
		s = "..." + s[len(s)-2000:]
	}
	return s
}
