package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
)

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
		if secret, err = loadSecret(data, getenv); err != nil {
			return err
		}
	} else {
		secret = make([]byte, 32) // no key: nothing stored can decrypt with it
	}
	opts, err := storeOptions(data, getenv)
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
