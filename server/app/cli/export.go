package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/hearth-dev/hearth/server/app"
	"github.com/hearth-dev/hearth/server/app/apply"
)

// exportCmd is "hearth export DIR": it writes the data dir's declarations to DIR.
func exportCmd(fs *flag.FlagSet, c cliIO) func([]string) error {
	data := dataFlag(fs, c)
	return func(pos []string) error {
		if err := positional("export", pos, "dir"); err != nil {
			return err
		}
		return withApp(c, *data, func(ctx context.Context, a *app.App) error {
			spec, err := apply.Export(ctx, apply.ServicesOf(a, c.getenv), pos[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "wrote %d users, %d orgs, %d pipes, %d memories, %d keysets (keys not included: set the key_env variables before applying), %d model entries, %d deployments to %s\n",
				len(spec.Users), len(spec.Orgs), len(spec.Pipes), len(spec.Memories), len(spec.Keysets), len(spec.Models), len(spec.Deployments), pos[0])
			return nil
		})
	}
}
