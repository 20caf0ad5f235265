package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

func usersCreate(fs *flag.FlagSet, c cliIO) func([]string) error {
	data := dataFlag(fs, c)
	return func(pos []string) error {
		if err := positional("users create", pos, "login"); err != nil {
			return err
		}
		return withAccounts(c, *data, func(ctx context.Context, _ engine.Store, acc *engine.Accounts) error {
			if _, err := acc.CreateUser(ctx, pos[0]); err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "created user %s\n", pos[0])
			return nil
		})
	}
}

func usersList(fs *flag.FlagSet, c cliIO) func([]string) error {
	data := dataFlag(fs, c)
	return func(pos []string) error {
		if err := positional("users list", pos); err != nil {
			return err
		}
		return withAccounts(c, *data, func(ctx context.Context, _ engine.Store, acc *engine.Accounts) error {
			accts, err := acc.List(ctx)
			if err != nil {
				return err
			}
			tw := newTable(c.stdout)
			fmt.Fprintln(tw, "LOGIN\tKIND\tCREATED\tMEMBERS")
			for _, a := range accts {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%v\n", a.Login, a.Kind, a.CreatedAt.Format("2006-01-02 15:04"), a.Members)
			}
			return tw.Flush()
		})
	}
}

func orgsCreate(fs *flag.FlagSet, c cliIO) func([]string) error {
	data := dataFlag(fs, c)
	owner := fs.String("owner", "", "owning user of the new organization (required)")
	return func(pos []string) error {
		if err := positional("orgs create", pos, "login"); err != nil {
			return err
		}
		if *owner == "" {
			return errors.New("orgs create: --owner <user> is required")
		}
		return withAccounts(c, *data, func(ctx context.Context, _ engine.Store, acc *engine.Accounts) error {
			if _, err := acc.CreateOrg(ctx, pos[0], *owner); err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "created organization %s owned by %s\n", pos[0], *owner)
			return nil
		})
	}
}

func orgsAddMember(fs *flag.FlagSet, c cliIO) func([]string) error {
	data := dataFlag(fs, c)
	return func(pos []string) error {
		if err := positional("orgs add-member", pos, "org", "user"); err != nil {
			return err
		}
		return withAccounts(c, *data, func(ctx context.Context, _ engine.Store, acc *engine.Accounts) error {
			if err := acc.AddMember(ctx, pos[0], pos[1]); err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "added %s to %s\n", pos[1], pos[0])
			return nil
		})
	}
}

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
