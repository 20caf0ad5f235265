package app

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hearth-dev/hearth/blob/postgres"
	"github.com/hearth-dev/hearth/engine"
)

// ErrBackupCluster is what `hearth backup` and /v1/admin/backup answer in
// cluster mode: the database is backed up with PostgreSQL's own tools.
var ErrBackupCluster = engine.Errorf(engine.CodeBadRequest,
	"this server runs in cluster mode on PostgreSQL: back it up with pg_dump (docs/several-nodes.md#backups)")

// pgStore is the PostgreSQL store as the application's Store. Backup
// refuses: a consistent copy of a database several nodes write is
// pg_dump's job (or the provider's snapshots), not one node's.
type pgStore struct{ *postgres.Store }

// Backup refuses with a pointer to pg_dump.
func (pgStore) Backup(context.Context, io.Writer) error { return ErrBackupCluster }

// DefaultPoolConns is each node's pool of PostgreSQL connections when
// neither HEARTH_DATABASE_MAX_CONNS nor the URL's pool_max_conns sets it:
// a request holds one only for the length of a transaction (group commit
// batches the writes of many), but pgx's default (4 on a small machine)
// would still queue requests long before the node is busy; 16 per node
// leaves room for several nodes within PostgreSQL's default
// max_connections of 100.
const DefaultPoolConns = 16

// openCluster opens the shared PostgreSQL store and this node's Cluster
// over it (cluster mode, Config.DatabaseURL set).
func openCluster(cfg Config) (Store, engine.Cluster, error) {
	ctx := context.Background()
	opts := postgres.Options{URL: cfg.DatabaseURL, Logger: cfg.Logger}
	switch {
	case cfg.DatabaseMaxConns > 0:
		opts.MaxConns = cfg.DatabaseMaxConns
	case !strings.Contains(cfg.DatabaseURL, "pool_max_conns="):
		opts.MaxConns = DefaultPoolConns
	}
	s := postgres.New(opts)
	if err := s.Open(ctx); err != nil {
		return nil, nil, err
	}
	c, err := postgres.NewCluster(ctx, s, postgres.ClusterOptions{Logger: cfg.Logger})
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	return pgStore{s}, c, nil
}

// keySecretCheck holds the verifier of the nodes' shared secret.
const keySecretCheck = "cluster/secret-check"

type secretCheck struct {
	// HMAC is hex(HMAC-SHA256(secret, secretCheckText)): it proves a node
	// holds the same secret without storing the secret.
	HMAC string `json:"hmac"`
}

const secretCheckText = "hearth cluster secret check v1"

// ErrSecretMismatch is returned when a node's HEARTH_SECRET_KEY differs from
// the one the database was first started with.
var ErrSecretMismatch = errors.New("HEARTH_SECRET_KEY does not match the key this database was first started with: " +
	"every node of a cluster must use the same HEARTH_SECRET_KEY (stored provider keys and signed upload URLs depend on it)")

// CheckSecret stores the verifier of secret on the first start of a
// database and compares it on every later start, in one transaction, so two
// nodes starting together with different keys cannot both record theirs.
// `hearth migrate` records it for the data dir's secret.
func CheckSecret(ctx context.Context, store engine.Store, secret []byte) error {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(secretCheckText))
	want := hex.EncodeToString(mac.Sum(nil))
	return store.Update(ctx, func(tx engine.Tx) error {
		var rec secretCheck
		err := tx.Get(keySecretCheck, &rec)
		switch {
		case engine.IsNotFound(err):
			return tx.Put(keySecretCheck, secretCheck{HMAC: want})
		case err != nil:
			return fmt.Errorf("read the secret check: %w", err)
		case !hmac.Equal([]byte(rec.HMAC), []byte(want)):
			return ErrSecretMismatch
		}
		return nil
	})
}
