package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/blob"
)

// backupCmd writes a backup of the data dir. With the server stopped it
// reads the dir directly; while a server holds it, it asks that server
// (GET /v1/admin/backup with the admin key), which streams a consistent
// snapshot without stopping.
func backupCmd(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", envOr(getenv, "HEARTH_DATA", "./hearth-data"), "data directory (env HEARTH_DATA)")
	out := fs.String("out", "", "backup file to write (default hearth-<time>.backup.zst; - for stdout)")
	url := fs.String("url", getenv("HEARTH_PUBLIC_URL"), "running server to back up when the data dir is in use (env HEARTH_PUBLIC_URL)")
	key := fs.String("key", getenv("HEARTH_ADMIN_KEY"), "admin API key for -url (env HEARTH_ADMIN_KEY)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if getenv("HEARTH_DATABASE_URL") != "" {
		return errClusterBackup
	}
	if *out == "" {
		*out = "hearth-" + time.Now().UTC().Format("20060102-150405") + ".backup.zst"
	}
	write := func(fill func(io.Writer) error) error {
		if *out == "-" {
			return fill(stdout)
		}
		tmp := *out + ".partial"
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return err
		}
		if err := fill(f); err != nil {
			f.Close()
			os.Remove(tmp)
			return err
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		if err := os.Rename(tmp, *out); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s\n", *out)
		return nil
	}

	opts, err := storeOptions(*data, getenv)
	if err != nil {
		return err
	}
	opts.ReadOnly = true
	store := blob.New(opts)
	err = store.Open()
	if err == nil {
		defer store.Close()
		return write(func(w io.Writer) error { return store.Backup(context.Background(), w) })
	}
	if !errors.Is(err, blob.ErrLocked) {
		return err
	}
	if *url == "" || *key == "" {
		return fmt.Errorf("%w: to back up a running server give -url and -key (the admin key), or stop it first", err)
	}
	return write(func(w io.Writer) error {
		req, err := http.NewRequest(http.MethodGet, strings.TrimRight(*url, "/")+"/v1/admin/backup", nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+*key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			return fmt.Errorf("server answered %s: %s", resp.Status, b)
		}
		_, err = io.Copy(w, resp.Body)
		return err
	})
}

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
	opts, err := storeOptions(*data, getenv)
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

// errClusterBackup is `hearth backup` in cluster mode: PostgreSQL holds the
// data, and its own tools back it up.
var errClusterBackup = errors.New("backup: HEARTH_DATABASE_URL is set: in cluster mode back up the PostgreSQL database with pg_dump " +
	"(pg_dump -Fc -f hearth.dump \"$HEARTH_DATABASE_URL\"; docs/several-nodes.md#backups)")

func envOr(getenv func(string) string, name, def string) string {
	if v := getenv(name); v != "" {
		return v
	}
	return def
}
