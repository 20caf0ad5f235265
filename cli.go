package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
)

// admin runs the account and key commands against the data dir.
func admin(group string, args []string, getenv func(string) string, stdin io.Reader, stdout io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%s: missing subcommand (see 'hearth help')", group)
	}
	verb := args[0]
	cfg, fs, err := loadConfig(group+" "+verb, nil, getenv)
	if err != nil {
		return err
	}
	fs = flag.NewFlagSet(group+" "+verb, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	data := fs.String("data", cfg.Data, "data directory (env HEARTH_DATA)")
	user := fs.String("user", "", "user login")
	org := fs.String("org", "", "organization login")
	owner := fs.String("owner", "", "owning user of a new organization")
	name := fs.String("name", "", "label of a new key")
	provider := fs.String("provider", "", "provider name of a keyset entry")
	providerKey := fs.String("key", "", "provider API key (default: read from standard input)")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}

	store := blob.New(blob.Options{Dir: *data})
	if err := store.Open(); err != nil {
		if errors.Is(err, blob.ErrLocked) {
			return fmt.Errorf("%w: stop the server first, or manage keys over HTTP (/v1/keys) while it runs", err)
		}
		return err
	}
	defer store.Close()
	acc := engine.NewAccounts(store)
	ctx := context.Background()
	arg := func(i int, what string) (string, error) {
		if i >= len(pos) {
			return "", fmt.Errorf("%s %s: missing <%s>", group, verb, what)
		}
		return pos[i], nil
	}

	ownerLogin := func() (string, error) {
		if (*user == "") == (*org == "") {
			return "", fmt.Errorf("%s %s: give exactly one of --user <login> or --org <login>", group, verb)
		}
		login, want := *user, engine.AccountUser
		if login == "" {
			login, want = *org, engine.AccountOrg
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

	switch group + " " + verb {
	case "keysets set", "keysets list", "keysets remove":
		login, err := ownerLogin()
		if err != nil {
			return err
		}
		secret, err := loadSecret(*data, getenv)
		if err != nil {
			return err
		}
		ks, err := engine.NewKeysets(store, nil, secret)
		if err != nil {
			return err
		}
		scope := engine.OwnerScope(login)
		switch verb {
		case "list":
			list, err := ks.List(ctx, scope)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "PROVIDER\tKEY\tUPDATED")
			for _, e := range list {
				fmt.Fprintf(tw, "%s\t…%s\t%s\n", e.Provider, e.Last4, e.UpdatedAt.Format("2006-01-02 15:04"))
			}
			return tw.Flush()
		case "remove":
			if err := ks.Delete(ctx, scope, *provider); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "removed the %s key of %s\n", *provider, login)
			return nil
		}
		key := *providerKey
		if key == "" {
			b, err := io.ReadAll(io.LimitReader(stdin, 8192))
			if err != nil {
				return err
			}
			key = strings.TrimSpace(string(b))
		}
		e, err := ks.Set(ctx, scope, *provider, key)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "stored the %s key of %s (…%s)\n", e.Provider, login, e.Last4)
	case "users create":
		login, err := arg(0, "login")
		if err != nil {
			return err
		}
		if _, err := acc.CreateUser(ctx, login); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "created user %s\n", login)
	case "users list":
		accts, err := acc.List(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "LOGIN\tKIND\tCREATED\tMEMBERS")
		for _, a := range accts {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%v\n", a.Login, a.Kind, a.CreatedAt.Format("2006-01-02 15:04"), a.Members)
		}
		tw.Flush()
	case "orgs create":
		login, err := arg(0, "login")
		if err != nil {
			return err
		}
		if *owner == "" {
			return errors.New("orgs create: --owner <user> is required")
		}
		if _, err := acc.CreateOrg(ctx, login, *owner); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "created organization %s owned by %s\n", login, *owner)
	case "orgs add-member":
		o, err := arg(0, "org")
		if err != nil {
			return err
		}
		u, err := arg(1, "user")
		if err != nil {
			return err
		}
		if err := acc.AddMember(ctx, o, u); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "added %s to %s\n", u, o)
	case "keys create", "keys list":
		login, err := ownerLogin()
		if err != nil {
			return err
		}
		if verb == "create" {
			rec, key, err := acc.CreateKey(ctx, login, *name)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "created %s key %s for %s; the key is shown once:\n\n    %s\n\n", rec.Kind, rec.ID, login, key)
			return nil
		}
		keys, err := acc.ListKeys(ctx, login)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tKIND\tPREFIX\tNAME\tCREATED\tSTATUS")
		for _, k := range keys {
			status := "active"
			if k.RevokedAt != nil {
				status = "revoked " + k.RevokedAt.Format("2006-01-02 15:04")
			}
			fmt.Fprintf(tw, "%s\t%s\t%s…\t%s\t%s\t%s\n", k.ID, k.Kind, k.Prefix, k.Name, k.CreatedAt.Format("2006-01-02 15:04"), status)
		}
		tw.Flush()
	case "keys revoke":
		id, err := arg(0, "key-id")
		if err != nil {
			return err
		}
		if err := acc.RevokeKey(ctx, "", id); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "revoked %s\n", id)
	default:
		return fmt.Errorf("unknown command %q (see 'hearth help')", group+" "+verb)
	}
	return nil
}

// parseInterleaved parses flags that may come before or after positional arguments.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
