package apply

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/memory"
)

// Services are the engine services apply and export work through
// (server/app builds them).
type Services struct {
	Accounts *engine.Accounts
	Pipes    *engine.Pipes
	Memory   *memory.Service
	Keysets  *engine.Keysets
	// Models stores the declared model entries; CheckModels validates
	// them against the provider registry (nil: shape only), counting
	// aliases (the providers of the deployments the same apply declares)
	// as known.
	Models      *engine.AppliedModels
	CheckModels func(entries []json.RawMessage, aliases []string) error
	// Deployments stores the declared deployments (nil: none can be).
	Deployments *engine.StoredDeployments
	// Store reads document bytes for Export.
	Store engine.Store
	// Getenv reads the environment variables keysets name (key_env).
	Getenv func(string) string
}

// Options adjust a plan.
type Options struct {
	// Prune deletes the pipes, memories, documents and keysets of the
	// owners the files mention that the files no longer declare, and
	// revokes the API keys apply created that they no longer declare,
	// and deletes the stored deployments they do not declare. Accounts
	// are never deleted.
	Prune bool
}

// Change is one step of a plan.
type Change struct {
	Action string // "create", "update" or "delete"
	Kind   string // "models", "deployment", "user", "org", "pipe", "memory", "document", "keyset", "key"
	Name   string
	Detail string
	run    func(ctx context.Context) error
}

// Plan is the ordered list of changes that makes the server match the
// files. An empty plan means the server already matches.
type Plan struct {
	Changes []Change
	// Admin is the default owner of objects declared without one.
	Admin string
}

// Print writes one line per change, then a summary.
func (p *Plan) Print(w io.Writer) {
	counts := map[string]int{}
	for _, c := range p.Changes {
		line := fmt.Sprintf("%-6s %-8s %s", c.Action, c.Kind, c.Name)
		if c.Detail != "" {
			line += " (" + c.Detail + ")"
		}
		fmt.Fprintln(w, line)
		counts[c.Action]++
	}
	fmt.Fprintf(w, "%d to create, %d to update, %d to delete\n", counts["create"], counts["update"], counts["delete"])
}

// Apply runs the changes in order and stops at the first error, naming
// the change.
func (p *Plan) Apply(ctx context.Context) error {
	for _, c := range p.Changes {
		if err := c.run(ctx); err != nil {
			return fmt.Errorf("%s %s %s: %w", c.Action, c.Kind, c.Name, err)
		}
	}
	return nil
}

func (p *Plan) add(action, kind, name, detail string, run func(ctx context.Context) error) {
	p.Changes = append(p.Changes, Change{Action: action, Kind: kind, Name: name, Detail: detail, run: run})
}

// planner compares a spec with the services' state.
type planner struct {
	svc    Services
	spec   *Spec
	opts   Options
	plan   *Plan
	admin  string
	owners map[string]bool // owners the files mention: the scope of Prune
}

// Build compares spec with the state of svc and returns the plan. Nothing
// is changed until Plan.Apply.
func Build(ctx context.Context, svc Services, spec *Spec, opts Options) (*Plan, error) {
	pl := &planner{svc: svc, spec: spec, opts: opts, plan: &Plan{}, owners: map[string]bool{}}
	if err := pl.findAdmin(ctx); err != nil {
		return nil, err
	}
	pl.plan.Admin = pl.admin
	if err := pl.checkUnique(); err != nil {
		return nil, err
	}
	steps := []func(context.Context) error{pl.models, pl.deployments, pl.accounts, pl.ownerKeysets, pl.memories, pl.pipes, pl.pipeKeysets, pl.keys}
	if opts.Prune {
		steps = append(steps, pl.prune)
	}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return nil, err
		}
	}
	return pl.plan, nil
}

// findAdmin picks the default owner: the operator (admin) user.
func (pl *planner) findAdmin(ctx context.Context) error {
	accts, err := pl.svc.Accounts.List(ctx)
	if err != nil {
		return err
	}
	for _, a := range accts {
		if a.Admin {
			pl.admin = a.Login
			return nil
		}
	}
	return fmt.Errorf("no admin user: start the server once to create it")
}

// owner returns the declared owner or the admin, and notes it.
func (pl *planner) owner(o string) string {
	if o == "" {
		o = pl.admin
	}
	pl.owners[o] = true
	return o
}

// checkUnique refuses an object declared twice.
func (pl *planner) checkUnique() error {
	seen := map[string]bool{}
	check := func(kind, key string) error {
		if seen[kind+" "+key] {
			return fmt.Errorf("%s %s is declared twice", kind, key)
		}
		seen[kind+" "+key] = true
		return nil
	}
	var keys [][2]string
	for _, u := range pl.spec.Users {
		keys = append(keys, [2]string{"account", u.Login})
	}
	for _, o := range pl.spec.Orgs {
		keys = append(keys, [2]string{"account", o.Login})
	}
	for _, p := range pl.spec.Pipes {
		keys = append(keys, [2]string{"pipe", pl.owner(p.Owner) + "/" + p.Name})
	}
	for _, m := range pl.spec.Memories {
		keys = append(keys, [2]string{"memory", pl.owner(m.Owner) + "/" + m.Name})
	}
	for _, k := range pl.spec.Keysets {
		keys = append(keys, [2]string{"keyset", keysetName(pl.owner(k.Owner), k.Pipe, k.Provider)})
	}
	for _, k := range pl.spec.Keys {
		keys = append(keys, [2]string{"key", pl.owner(k.Owner) + "/" + k.Name})
	}
	for _, d := range pl.spec.Deployments {
		keys = append(keys, [2]string{"deployment", d.Name})
	}
	for _, k := range keys {
		if err := check(k[0], k[1]); err != nil {
			return err
		}
	}
	return nil
}

// accounts creates missing users and orgs and adds missing members.
func (pl *planner) accounts(ctx context.Context) error {
	acc := pl.svc.Accounts
	for _, u := range pl.spec.Users {
		pl.owners[u.Login] = true
		if _, err := acc.Get(ctx, u.Login); engine.IsNotFound(err) {
			pl.plan.add("create", "user", u.Login, "", func(ctx context.Context) error {
				_, err := acc.CreateUser(ctx, u.Login)
				return err
			})
		} else if err != nil {
			return err
		}
	}
	for _, o := range pl.spec.Orgs {
		pl.owners[o.Login] = true
		cur, err := acc.Get(ctx, o.Login)
		var have []string
		switch {
		case engine.IsNotFound(err):
			pl.plan.add("create", "org", o.Login, "owner "+o.Owner, func(ctx context.Context) error {
				_, err := acc.CreateOrg(ctx, o.Login, o.Owner)
				return err
			})
			have = []string{o.Owner}
		case err != nil:
			return err
		case len(cur.Members) > 0 && cur.Members[0] != o.Owner:
			return fmt.Errorf("org %s: owned by %s, not %s; an org's owner cannot be changed", o.Login, cur.Members[0], o.Owner)
		default:
			have = cur.Members
		}
		for _, m := range o.Members {
			if !contains(have, m) {
				pl.plan.add("update", "org", o.Login, "add member "+m, func(ctx context.Context) error {
					return acc.AddMember(ctx, o.Login, m)
				})
			}
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// sortedOwners lists the owners in scope, for a stable prune order.
func (pl *planner) sortedOwners() []string {
	var out []string
	for o := range pl.owners {
		out = append(out, o)
	}
	sort.Strings(out)
	return out
}
