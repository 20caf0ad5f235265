package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/hearth-dev/hearth/engine"
)

// orgsCreate is "hearth orgs create LOGIN --owner USER": it creates an organization owned by a user.
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

// orgsAddMember is "hearth orgs add-member ORG USER": it adds a user to an organization.
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
