package app_test

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/hearth-dev/hearth/server/app"
	"github.com/hearth-dev/hearth/server/servertest"
	"github.com/jackc/pgx/v5/pgxpool"
)

func clusterConfig(t *testing.T, url string) app.Config {
	cfg := servertest.Config(t.TempDir(), "http://127.0.0.1:1")
	cfg.DatabaseURL = url
	return cfg
}

// TestClusterBootstrapOnce: three nodes starting together on an empty
// database create the first user and its key exactly once.
func TestClusterBootstrapOnce(t *testing.T) {
	url := servertest.DatabaseURL(t)
	apps := make([]*app.App, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i := range apps {
		cfg := clusterConfig(t, url)
		cfg.AdminKey = "" // generated, so each node's attempt would differ
		wg.Add(1)
		go func() {
			defer wg.Done()
			apps[i], errs[i] = app.New(cfg)
		}()
	}
	wg.Wait()
	created := 0
	for i, a := range apps {
		if errs[i] != nil {
			t.Fatalf("node %d: %v", i, errs[i])
		}
		defer a.Close(context.Background())
		if !a.Cluster.Shared() {
			t.Fatalf("node %d is not in cluster mode", i)
		}
		if a.Created {
			created++
			if a.FirstKey == "" {
				t.Fatal("the creating node has no key to print")
			}
			if _, err := apps[(i+1)%3].Deps.Accounts.Authenticate(context.Background(), a.FirstKey); err != nil {
				t.Fatalf("first key unknown on another node: %v", err)
			}
		}
	}
	accts, err := apps[0].Deps.Accounts.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	keys, err := apps[1].Deps.Accounts.ListKeys(context.Background(), "admin")
	if created != 1 || len(accts) != 1 || len(keys) != 1 {
		t.Fatalf("%d nodes created the first user; %d accounts, %d admin keys (%v)", created, len(accts), len(keys), err)
	}
}

// TestClusterSecretMismatch: a node whose secret differs from the one the
// database first started with refuses to start and says why, the backup
// refuses in cluster mode with a pointer to pg_dump, and the connection
// pool follows pool_max_conns.
func TestClusterSecretMismatch(t *testing.T) {
	url := servertest.DatabaseURL(t)
	first, err := app.New(clusterConfig(t, url))
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close(context.Background())
	if err := first.Deps.Backup(context.Background(), &bytes.Buffer{}); !errors.Is(err, app.ErrBackupCluster) {
		t.Fatalf("backup in cluster mode: %v", err)
	}
	if n := first.Store.(interface{ Pool() *pgxpool.Pool }).Pool().Config().MaxConns; n != app.DefaultPoolConns {
		t.Fatalf("pool of %d connections, want %d", n, app.DefaultPoolConns)
	}
	cfg := clusterConfig(t, url)
	cfg.Secret = bytes.Repeat([]byte("x"), 32)
	if a, err := app.New(cfg); !errors.Is(err, app.ErrSecretMismatch) {
		if a != nil {
			a.Close(context.Background())
		}
		t.Fatalf("node with another secret: %v", err)
	}
	cfg = clusterConfig(t, url)
	cfg.DatabaseURL += "&pool_max_conns=3"
	same, err := app.New(cfg)
	if err != nil {
		t.Fatalf("node with the same secret: %v", err)
	}
	defer same.Close(context.Background())
	if n := same.Store.(interface{ Pool() *pgxpool.Pool }).Pool().Config().MaxConns; n != 3 {
		t.Fatalf("pool_max_conns=3 in the URL: a pool of %d", n)
	}
}
