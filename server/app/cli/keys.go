package cli

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// keysCreate is "hearth keys create": it creates an API key, optionally scoped, and prints it once.
func keysCreate(fs *flag.FlagSet, c cliIO) func([]string) error {
	data, owner := dataFlag(fs, c), defineOwner(fs)
	name := fs.String("name", "", "label of the new key")
	sf := defineScope(fs)
	return func(pos []string) error {
		if err := positional("keys create", pos); err != nil {
			return err
		}
		scope, err := sf.scope(time.Now())
		if err != nil {
			return err
		}
		return withAccounts(c, *data, func(ctx context.Context, _ engine.Store, acc *engine.Accounts) error {
			login, err := owner.login(ctx, "keys create", acc)
			if err != nil {
				return err
			}
			rec, key, err := acc.CreateScopedKey(ctx, login, *name, scope)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "created %s key %s for %s; the key is shown once:\n\n    %s\n\n", rec.Kind, rec.ID, login, key)
			return nil
		})
	}
}

// keysList is "hearth keys list": a table of an owner's API keys.
func keysList(fs *flag.FlagSet, c cliIO) func([]string) error {
	data, owner := dataFlag(fs, c), defineOwner(fs)
	return func(pos []string) error {
		if err := positional("keys list", pos); err != nil {
			return err
		}
		return withAccounts(c, *data, func(ctx context.Context, _ engine.Store, acc *engine.Accounts) error {
			login, err := owner.login(ctx, "keys list", acc)
			if err != nil {
				return err
			}
			keys, err := acc.ListKeys(ctx, login)
			if err != nil {
				return err
			}
			tw := newTable(c.stdout)
			fmt.Fprintln(tw, "ID\tKIND\tPREFIX\tNAME\tCREATED\tSTATUS\tSCOPE")
			for _, k := range keys {
				status := "active"
				if k.RevokedAt != nil {
					status = "revoked " + k.RevokedAt.Format("2006-01-02 15:04")
				}
				fmt.Fprintf(tw, "%s\t%s\t%s…\t%s\t%s\t%s\t%s\n", k.ID, k.Kind, k.Prefix, k.Name, k.CreatedAt.Format("2006-01-02 15:04"), status, scopeSummary(k.Scope))
			}
			return tw.Flush()
		})
	}
}

// keysRevoke is "hearth keys revoke KEY-ID": it revokes an API key.
func keysRevoke(fs *flag.FlagSet, c cliIO) func([]string) error {
	data := dataFlag(fs, c)
	return func(pos []string) error {
		if err := positional("keys revoke", pos, "key-id"); err != nil {
			return err
		}
		return withAccounts(c, *data, func(ctx context.Context, _ engine.Store, acc *engine.Accounts) error {
			if err := acc.RevokeKey(ctx, "", pos[0]); err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "revoked %s\n", pos[0])
			return nil
		})
	}
}
