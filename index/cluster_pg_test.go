package index

import (
	"context"
	"testing"

	"github.com/hearth-dev/hearth/blob/postgres"
	"github.com/hearth-dev/hearth/blob/postgres/pgtest"
	"github.com/hearth-dev/hearth/engine"
)

// The cluster replica tests on PostgreSQL (SERIALIZABLE transactions that
// PostgreSQL may abort and the store retries), with a throwaway server:
// they skip without PostgreSQL binaries, and fail then under CI=true.

func pgStore(t *testing.T) engine.Store {
	s := postgres.New(postgres.Options{URL: pgtest.URL(t), Logger: quietLogger()})
	if err := s.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestClusterReplicasPostgres(t *testing.T) { testClusterReplicas(t, pgStore(t)) }

func TestClusterConcurrentAddsPostgres(t *testing.T) { testClusterConcurrentAdds(t, pgStore(t)) }

func TestClusterTrimmedLogPostgres(t *testing.T) { testClusterTrimmedLog(t, pgStore(t)) }

func TestClusterReadYourWritesPostgres(t *testing.T) { testClusterReadYourWrites(t, pgStore(t)) }
