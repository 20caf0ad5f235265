package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// withKeysets opens the data dir and the keysets of the owner that
// --user or --org names.
func withKeysets(c cliIO, data string, owner ownerFlags, name string,
	fn func(ctx context.Context, ks *engine.Keysets, scope string, login string) error) error {
	return withAccounts(c, data, func(ctx context.Context, store engine.Store, acc *engine.Accounts) error {
		login, err := owner.login(ctx, name, acc)
		if err != nil {
			return err
		}
		secret, err := adminSecret(c, data)
		if err != nil {
			return err
		}
		ks, err := engine.NewKeysets(store, nil, secret)
		if err != nil {
			return err
		}
		return fn(ctx, ks, engine.OwnerScope(login), login)
	})
}

func keysetsSet(fs *flag.FlagSet, c cliIO) func([]string) error {
	data, owner := dataFlag(fs, c), defineOwner(fs)
	provider := fs.String("provider", "", "provider name")
	providerKey := fs.String("key", "", "provider API key (default: read from standard input)")
	return func(pos []string) error {
		if err := positional("keysets set", pos); err != nil {
			return err
		}
		return withKeysets(c, *data, owner, "keysets set", func(ctx context.Context, ks *engine.Keysets, scope string, login string) error {
			key := *providerKey
			if key == "" {
				b, err := io.ReadAll(io.LimitReader(c.stdin, 8192))
				if err != nil {
					return err
				}
				key = strings.TrimSpace(string(b))
			}
			e, err := ks.Set(ctx, scope, *provider, key)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "stored the %s key of %s (…%s)\n", e.Provider, login, e.Last4)
			return nil
		})
	}
}

func keysetsList(fs *flag.FlagSet, c cliIO) func([]string) error {
	data, owner := dataFlag(fs, c), defineOwner(fs)
	return func(pos []string) error {
		if err := positional("keysets list", pos); err != nil {
			return err
		}
		return withKeysets(c, *data, owner, "keysets list", func(ctx context.Context, ks *engine.Keysets, scope string, _ string) error {
			list, err := ks.List(ctx, scope)
			if err != nil {
				return err
			}
			tw := newTable(c.stdout)
			fmt.Fprintln(tw, "PROVIDER\tKEY\tUPDATED")
			for _, e := range list {
				fmt.Fprintf(tw, "%s\t…%s\t%s\n", e.Provider, e.Last4, e.UpdatedAt.Format("2006-01-02 15:04"))
			}
			return tw.Flush()
		})
	}
}

func keysetsRemove(fs *flag.FlagSet, c cliIO) func([]string) error {
	data, owner := dataFlag(fs, c), defineOwner(fs)
	provider := fs.String("provider", "", "provider name")
	return func(pos []string) error {
		if err := positional("keysets remove", pos); err != nil {
			return err
		}
		return withKeysets(c, *data, owner, "keysets remove", func(ctx context.Context, ks *engine.Keysets, scope string, login string) error {
			if err := ks.Delete(ctx, scope, *provider); err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "removed the %s key of %s\n", *provider, login)
			return nil
		})
	}
}
