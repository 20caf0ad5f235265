package apply

import (
	"context"

	"github.com/hearth-dev/hearth/engine"
)

func keysetName(owner, pipe, provider string) string {
	if pipe != "" {
		return owner + "/" + pipe + ":" + provider
	}
	return owner + ":" + provider
}

// value reads a keyset's key from its environment variable or file.
func (pl *planner) value(k KeysetSpec) (string, error) {
	return pl.read("keyset "+keysetName(pl.owner(k.Owner), k.Pipe, k.Provider), k.KeyEnv, k.KeyFile)
}

// ownerKeysets plans the keysets of users and orgs.
func (pl *planner) ownerKeysets(ctx context.Context) error {
	for _, k := range pl.spec.Keysets {
		if k.Pipe == "" {
			owner := pl.owner(k.Owner)
			if err := pl.keyset(ctx, k, func(context.Context) (string, error) { return engine.OwnerScope(owner), nil }, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// pipeKeysets plans the keysets of pipes, after the pipes themselves: a
// pipe created by this plan gets its id when the plan runs.
func (pl *planner) pipeKeysets(ctx context.Context) error {
	for _, k := range pl.spec.Keysets {
		if k.Pipe == "" {
			continue
		}
		owner := pl.owner(k.Owner)
		scope := func(ctx context.Context) (string, error) {
			p, err := pl.svc.Pipes.Get(ctx, owner, k.Pipe)
			if err != nil {
				return "", err
			}
			return engine.PipeScope(p.ID), nil
		}
		_, err := pl.svc.Pipes.Get(ctx, owner, k.Pipe)
		if err != nil && !engine.IsNotFound(err) {
			return err
		}
		if err := pl.keyset(ctx, k, scope, err == nil); err != nil {
			return err
		}
	}
	return nil
}

// keyset plans setting one key unless the stored one is the same.
func (pl *planner) keyset(ctx context.Context, k KeysetSpec, scope func(context.Context) (string, error), scopeExists bool) error {
	key, err := pl.value(k)
	if err != nil {
		return err
	}
	name := keysetName(pl.owner(k.Owner), k.Pipe, k.Provider)
	action := "create"
	if scopeExists {
		sc, err := scope(ctx)
		if err != nil && !engine.IsNotFound(err) {
			return err
		}
		if err == nil {
			same, err := pl.svc.Keysets.Holds(ctx, sc, k.Provider, key)
			if err != nil {
				return err
			}
			if same {
				return nil
			}
			if list, err := pl.svc.Keysets.List(ctx, sc); err == nil && hasProvider(list, k.Provider) {
				action = "update"
			}
		}
	}
	pl.plan.add(action, "keyset", name, "", func(ctx context.Context) error {
		sc, err := scope(ctx)
		if err != nil {
			return err
		}
		_, err = pl.svc.Keysets.Set(ctx, sc, k.Provider, key)
		return err
	})
	return nil
}

func hasProvider(list []engine.KeysetEntry, provider string) bool {
	for _, e := range list {
		if e.Provider == provider {
			return true
		}
	}
	return false
}

// prune plans deleting the pipes, memories, keysets and managed API keys
// (revoked) of the owners in
// scope that the files do not declare (documents of declared memories are
// pruned by documents). Pipe deletion removes the pipe's keyset with it.
func (pl *planner) prune(ctx context.Context) error {
	pipes, mems, keys := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, p := range pl.spec.Pipes {
		pipes[pl.owner(p.Owner)+"/"+p.Name] = true
	}
	for _, m := range pl.spec.Memories {
		mems[pl.owner(m.Owner)+"/"+m.Name] = true
	}
	for _, k := range pl.spec.Keysets {
		keys[keysetName(pl.owner(k.Owner), k.Pipe, k.Provider)] = true
	}
	for _, owner := range pl.sortedOwners() {
		if _, err := pl.svc.Accounts.Get(ctx, owner); engine.IsNotFound(err) {
			continue // created by this plan: nothing to prune
		}
		list, err := pl.svc.Pipes.List(ctx, owner)
		if err != nil {
			return err
		}
		for _, p := range list {
			if !pipes[owner+"/"+p.Name] {
				pl.plan.add("delete", "pipe", owner+"/"+p.Name, "", func(ctx context.Context) error { return pl.svc.Pipes.Delete(ctx, owner, p.Name) })
				continue
			}
			entries, err := pl.svc.Keysets.List(ctx, engine.PipeScope(p.ID))
			if err != nil {
				return err
			}
			for _, e := range entries {
				if !keys[keysetName(owner, p.Name, e.Provider)] {
					pl.plan.add("delete", "keyset", keysetName(owner, p.Name, e.Provider), "", func(ctx context.Context) error {
						return pl.svc.Keysets.Delete(ctx, engine.PipeScope(p.ID), e.Provider)
					})
				}
			}
		}
		ml, err := pl.svc.Memory.List(ctx, owner)
		if err != nil {
			return err
		}
		for _, m := range ml {
			if !mems[owner+"/"+m.Name] {
				pl.plan.add("delete", "memory", owner+"/"+m.Name, "", func(ctx context.Context) error { return pl.svc.Memory.Delete(ctx, owner, m.Name) })
			}
		}
		if err := pl.pruneKeys(ctx, owner); err != nil {
			return err
		}
		entries, err := pl.svc.Keysets.List(ctx, engine.OwnerScope(owner))
		if err != nil {
			return err
		}
		for _, e := range entries {
			if !keys[keysetName(owner, "", e.Provider)] {
				pl.plan.add("delete", "keyset", keysetName(owner, "", e.Provider), "", func(ctx context.Context) error {
					return pl.svc.Keysets.Delete(ctx, engine.OwnerScope(owner), e.Provider)
				})
			}
		}
	}
	return nil
}
