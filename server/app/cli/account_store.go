package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/blob/postgres"
	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/server/app/config"
)

// withAccounts opens the store for the duration of fn: the data dir's, or
// in cluster mode (HEARTH_DATABASE_URL) the shared PostgreSQL database,
// which the running nodes keep serving meanwhile (every node reads keys and
// accounts from the database on each request, so a change shows at once).
func withAccounts(c cliIO, data string, fn func(ctx context.Context, store engine.Store, acc *engine.Accounts) error) error {
	ctx := context.Background()
	if u := c.getenv("HEARTH_DATABASE_URL"); u != "" {
		store := postgres.New(postgres.Options{URL: u})
		if err := store.Open(ctx); err != nil {
			return err
		}
		defer store.Close()
		return fn(ctx, store, engine.NewAccounts(store))
	}
	opts, err := config.StoreOptions(data, c.getenv)
	if err != nil {
		return err
	}
	store := blob.New(opts)
	if err := store.Open(); err != nil {
		if errors.Is(err, blob.ErrLocked) {
			return fmt.Errorf("%w: stop the server first, or manage keys over HTTP (/v1/keys) while it runs", err)
		}
		return err
	}
	defer store.Close()
	return fn(ctx, store, engine.NewAccounts(store))
}

// adminSecret is the secret of the admin commands: the data dir's, or in
// cluster mode HEARTH_SECRET_KEY, which is then required (a key file made up
// on the spot would encrypt keysets no node can read).
func adminSecret(c cliIO, data string) ([]byte, error) {
	if c.getenv("HEARTH_DATABASE_URL") != "" && strings.TrimSpace(c.getenv("HEARTH_SECRET_KEY")) == "" {
		return nil, errors.New("HEARTH_SECRET_KEY is required with HEARTH_DATABASE_URL: use the key the cluster's nodes run with")
	}
	return config.LoadSecret(data, c.getenv)
}

// ownerFlags are --user and --org: exactly one names the owner.
type ownerFlags struct{ user, org *string }

// defineOwner defines --user and --org on fs.
func defineOwner(fs *flag.FlagSet) ownerFlags {
	return ownerFlags{fs.String("user", "", "user login"), fs.String("org", "", "organization login")}
}

// login checks that exactly one of --user and --org is given and names an
// account of that kind.
func (o ownerFlags) login(ctx context.Context, name string, acc *engine.Accounts) (string, error) {
	if (*o.user == "") == (*o.org == "") {
		return "", fmt.Errorf("%s: give exactly one of --user <login> or --org <login>", name)
	}
	login, want := *o.user, engine.AccountUser
	if login == "" {
		login, want = *o.org, engine.AccountOrg
	}
	a, err := acc.Get(ctx, login)
	if err != nil {
		return "", err
	}
	if a.Kind != want {
		return "", fmt.Errorf("%s is a %s, not a %s", login, a.Kind, want)
	}
	return login, nil
}
