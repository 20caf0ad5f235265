package cli

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/blob/postgres"
	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/server/app"
	"github.com/hearth-dev/hearth/server/app/config"
)

// Records are copied in transactions of at most migrateBatchRows rows or
// migrateBatchBytes of values.
const (
	migrateBatchRows  = 500
	migrateBatchBytes = 8 << 20
)

// migrateCmd copies an embedded data dir (records, document blobs, keysets)
// into an empty PostgreSQL database, for moving an install to cluster mode.
// The server must be stopped: the copy reads one consistent snapshot.
func migrateCmd(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", envOr(getenv, "HEARTH_DATA", "./hearth-data"), "embedded data directory to copy (env HEARTH_DATA)")
	to := fs.String("to", "", "postgres:// URL of an empty PostgreSQL database to copy into")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if u, err := url.Parse(*to); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" {
		return usageError{errors.New("migrate: -to must be a URL such as postgres://user:password@host:5432/hearth")}
	}
	secret, err := config.LoadSecret(*data, getenv)
	if err != nil {
		return err
	}
	opts, err := config.StoreOptions(*data, getenv)
	if err != nil {
		return err
	}
	opts.ReadOnly = true
	src := blob.New(opts)
	if err := src.Open(); err != nil {
		if errors.Is(err, blob.ErrLocked) {
			return fmt.Errorf("%w: stop the server before migrating its data dir", err)
		}
		return err
	}
	defer src.Close()
	ctx := context.Background()
	dst := postgres.New(postgres.Options{URL: *to})
	if err := dst.Open(ctx); err != nil {
		return err
	}
	defer dst.Close()
	if empty, err := dst.Empty(ctx); err != nil {
		return err
	} else if !empty {
		return errors.New("migrate: the target database already holds Hearth data; migrate into an empty database")
	}
	records, blobs, err := copyStore(ctx, src, dst)
	if err != nil {
		return fmt.Errorf("migrate: %w (the target is partly filled: drop and recreate it before trying again)", err)
	}
	if err := app.CheckSecret(ctx, dst, secret); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "copied %d records and %d documents' bytes into PostgreSQL\n", records, blobs)
	fmt.Fprintf(stdout, "Start every node with:\n\n    HEARTH_DATABASE_URL=%s\n    HEARTH_SECRET_KEY=%s\n\n", redactURL(*to), hex.EncodeToString(secret))
	return nil
}

// copyStore copies every record of src into dst in batches, then every
// blob; Badger keeps blob parts as records under blob/, which become
// PostgreSQL blobs instead.
func copyStore(ctx context.Context, src *blob.Store, dst *postgres.Store) (records, blobs int, err error) {
	type kv struct {
		k string
		v []byte
	}
	var batch []kv
	var size int
	var blobIDs []string
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := dst.Update(ctx, func(tx engine.Tx) error {
			for _, r := range batch {
				if err := tx.PutRaw(r.k, r.v); err != nil {
					return err
				}
			}
			return nil
		})
		records += len(batch)
		batch, size = batch[:0], 0
		return err
	}
	err = src.View(ctx, func(tx engine.Tx) error {
		return tx.Scan("", "", func(k string, v []byte) error {
			if strings.HasPrefix(k, "blob/") {
				if id, ok := strings.CutSuffix(strings.TrimPrefix(k, "blob/"), "/meta"); ok {
					blobIDs = append(blobIDs, id)
				}
				return nil
			}
			batch = append(batch, kv{k, append([]byte(nil), v...)})
			if size += len(v); len(batch) >= migrateBatchRows || size >= migrateBatchBytes {
				return flush()
			}
			return nil
		})
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return records, 0, err
	}
	for _, id := range blobIDs {
		b, err := src.GetBlob(ctx, id)
		if err != nil {
			return records, blobs, fmt.Errorf("read blob %s: %w", id, err)
		}
		if _, err := dst.PutBlob(ctx, id, bytes.NewReader(b)); err != nil {
			return records, blobs, fmt.Errorf("write blob %s: %w", id, err)
		}
		blobs++
	}
	return records, blobs, nil
}

// redactURL hides the password of a database URL.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	return u.Redacted()
}
