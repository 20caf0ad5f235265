package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/server/app/config"
)

// restoreCmd loads a backup into an empty data dir. It refuses a dir that a
// server holds; a dir with data is moved aside only with -force.
func restoreCmd(args []string, getenv func(string) string, stderr io.Writer) error {
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", envOr(getenv, "HEARTH_DATA", "./hearth-data"), "data directory to restore into (env HEARTH_DATA)")
	in := fs.String("in", "", "backup file to read (- for stdin)")
	force := fs.Bool("force", false, "move an existing, stopped data dir aside (to <dir>.before-restore-<time>) instead of refusing")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *in == "" {
		return errors.New("restore: -in <backup file> is required")
	}
	if getenv("HEARTH_DATABASE_URL") != "" {
		return errors.New("restore: HEARTH_DATABASE_URL is set: a cluster's database is restored with pg_restore or psql; " +
			"to load a backup of an embedded install into it, restore into an empty data dir, then run `hearth migrate -to` (docs/several-nodes.md#moving-an-install-in)")
	}
	opts, err := config.StoreOptions(*data, getenv)
	if err != nil {
		return err
	}
	var r io.Reader = os.Stdin
	if *in != "-" {
		f, err := os.Open(*in)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	err = blob.RestoreWith(opts, r)
	if errors.Is(err, blob.ErrNotEmpty) && *force {
		aside := filepath.Clean(*data) + ".before-restore-" + time.Now().UTC().Format("20060102-150405")
		secret, _ := os.ReadFile(filepath.Join(*data, "secret.key"))
		if err := os.Rename(*data, aside); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "moved the old data dir to %s\n", aside)
		if len(secret) > 0 {
			if err := os.MkdirAll(*data, 0o700); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(*data, "secret.key"), secret, 0o600); err != nil {
				return err
			}
		}
		if f, ok := r.(*os.File); ok && f != os.Stdin {
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return err
			}
		}
		err = blob.RestoreWith(opts, r)
	}
	if errors.Is(err, blob.ErrLocked) {
		return fmt.Errorf("%w: refusing to restore into a live data dir; stop the server first", err)
	}
	if errors.Is(err, blob.ErrNotEmpty) {
		return fmt.Errorf("%w; restore into an empty dir, or add -force to move it aside", err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "restored into %s\n", *data)
	if err := checkRestoredKeysets(*data, getenv, stderr); err != nil {
		return fmt.Errorf("restored into %s, but checking its keysets failed: %w", *data, err)
	}
	return nil
}

// checkRestoredKeysets tells, after a restore into data, whether the
// secret key the server will use there decrypts the restored provider
// keysets, and when it does not, says loudly what to do. It never creates
// a secret key: a missing one is reported instead.
func checkRestoredKeysets(data string, getenv func(string) string, w io.Writer) error {
	envSecret := strings.TrimSpace(getenv("HEARTH_SECRET_KEY")) != ""
	_, statErr := os.Stat(filepath.Join(data, "secret.key"))
	haveSecret := envSecret || statErr == nil
	var secret []byte
	if haveSecret {
		var err error
		if secret, err = config.LoadSecret(data, getenv); err != nil {
			return err
		}
	} else {
		secret = make([]byte, 32) // no key: nothing stored can decrypt with it
	}
	opts, err := config.StoreOptions(data, getenv)
	if err != nil {
		return err
	}
	store := blob.New(opts)
	if err := store.Open(); err != nil {
		return err
	}
	defer store.Close()
	keysets, err := engine.NewKeysets(store, nil, secret)
	if err != nil {
		return err
	}
	bad, total, err := keysets.Undecryptable(context.Background())
	if err != nil || len(bad) == 0 {
		return err
	}
	source := filepath.Join(data, "secret.key")
	if envSecret {
		source = "HEARTH_SECRET_KEY"
	}
	fmt.Fprintf(w, "\nWARNING: %d of %d stored provider keysets cannot be decrypted", len(bad), total)
	if !haveSecret {
		fmt.Fprintf(w, ": %s has no secret.key and HEARTH_SECRET_KEY is not set.\n", data)
	} else {
		fmt.Fprintf(w, " with the secret key in %s.\n", source)
	}
	fmt.Fprintf(w, "Runs that need them will fail with 412 naming the keyset. To fix, before starting the server:\n"+
		"  - copy the secret.key of the server the backup came from to %s, or set HEARTH_SECRET_KEY to it; or\n"+
		"  - after starting, store those provider keys again (PUT /v1/keysets/<provider>).\n"+
		"Keysets affected: %s\n\n", filepath.Join(data, "secret.key"), strings.Join(bad, ", "))
	return nil
}
