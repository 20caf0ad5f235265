package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/hearth-dev/hearth/engine"
)

// usersCreate is "hearth users create LOGIN": it creates a user account.
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

// usersList is "hearth users list": a table of the users and organizations.
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
