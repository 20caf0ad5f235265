package apply

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// ManagedPrefix starts the stored name of every API key apply creates.
// Only keys with it are compared, replaced and pruned: keys created by
// hand (POST /v1/keys, hearth keys create) are never touched. The mark
// lives on the key record in the store, so every node of a cluster sees
// the same set of managed keys.
const ManagedPrefix = "apply:"

// KeySpec declares a user or org API key, optionally scoped
// (docs/accounts-and-keys.md#scoped-keys). Its secret comes from an environment
// variable (key_env) or a file (key_file); an inline key is refused.
type KeySpec struct {
	Owner   string `json:"owner,omitempty"`
	Name    string `json:"name"`
	KeyEnv  string `json:"key_env,omitempty"`
	KeyFile string `json:"key_file,omitempty"`
	Key     string `json:"key,omitempty"`
	engine.Scope
}

// secret reads a declared key's secret.
func (pl *planner) secret(k KeySpec, name string) (string, error) {
	return pl.read("key "+name, k.KeyEnv, k.KeyFile)
}

// read returns the value of the environment variable env or the content
// of file (exactly one of them), for the object named what.
func (pl *planner) read(what, env, file string) (string, error) {
	switch {
	case (env == "") == (file == ""):
		return "", fmt.Errorf("%s: give exactly one of key_env or key_file", what)
	case env != "":
		v := ""
		if pl.svc.Getenv != nil {
			v = pl.svc.Getenv(env)
		}
		if v == "" {
			return "", fmt.Errorf("%s: environment variable %s is not set", what, env)
		}
		return v, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// managedKeys returns an owner's live keys that apply created, by declared
// name. A missing owner (created by this plan) has none.
func (pl *planner) managedKeys(ctx context.Context, owner string) (map[string]*engine.APIKey, error) {
	out := map[string]*engine.APIKey{}
	list, err := pl.svc.Accounts.ListKeys(ctx, owner)
	if engine.IsNotFound(err) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	for _, k := range list {
		if k.RevokedAt == nil && k.PipeID == "" && strings.HasPrefix(k.Name, ManagedPrefix) {
			out[strings.TrimPrefix(k.Name, ManagedPrefix)] = k
		}
	}
	return out, nil
}

// sameScope reports whether two scopes limit and set the same things.
func sameScope(a, b *engine.Scope) bool {
	norm := func(s *engine.Scope) string {
		if s.Empty() && s.CacheMode() == "" {
			return ""
		}
		c := *s
		if c.ExpiresAt != nil {
			t := c.ExpiresAt.UTC()
			c.ExpiresAt = &t
		}
		b, _ := json.Marshal(c)
		return string(b)
	}
	return norm(a) == norm(b)
}

// keys plans the declared API keys: a missing one is created, one whose
// secret or scope differs is revoked and created again (an update).
func (pl *planner) keys(ctx context.Context) error {
	have := map[string]map[string]*engine.APIKey{}
	for _, k := range pl.spec.Keys {
		owner := pl.owner(k.Owner)
		name := owner + "/" + k.Name
		secret, err := pl.secret(k, name)
		if err != nil {
			return err
		}
		if have[owner] == nil {
			if have[owner], err = pl.managedKeys(ctx, owner); err != nil {
				return err
			}
		}
		scope := k.Scope
		cur := have[owner][k.Name]
		action := "create"
		if cur != nil {
			if cur.Hash == engine.HashKey(secret) && sameScope(cur.Scope, &scope) {
				continue
			}
			action = "update"
		}
		if err := scope.Validate(time.Now()); err != nil {
			return fmt.Errorf("key %s: %w", name, err)
		}
		pl.plan.add(action, "key", name, "", func(ctx context.Context) error {
			if cur != nil {
				if err := pl.svc.Accounts.RevokeKey(ctx, owner, cur.ID); err != nil {
					return err
				}
			}
			_, err := pl.svc.Accounts.ImportScopedKey(ctx, owner, ManagedPrefix+k.Name, secret, &scope)
			return err
		})
	}
	return nil
}

// pruneKeys plans revoking an owner's managed keys the files no longer
// declare.
func (pl *planner) pruneKeys(ctx context.Context, owner string) error {
	declared := map[string]bool{}
	for _, k := range pl.spec.Keys {
		if pl.owner(k.Owner) == owner {
			declared[k.Name] = true
		}
	}
	have, err := pl.managedKeys(ctx, owner)
	if err != nil {
		return err
	}
	for _, name := range sortedKeys(have) {
		if !declared[name] {
			id := have[name].ID
			pl.plan.add("delete", "key", owner+"/"+name, "revoke", func(ctx context.Context) error {
				return pl.svc.Accounts.RevokeKey(ctx, owner, id)
			})
		}
	}
	return nil
}

// exportKeys adds an owner's managed keys, without secrets: each names an
// environment variable (HEARTH_APIKEY_<OWNER>_<NAME>) to set.
func exportKeys(ctx context.Context, svc Services, owner string, out *Spec) error {
	pl := &planner{svc: svc, owners: map[string]bool{}}
	have, err := pl.managedKeys(ctx, owner)
	if err != nil {
		return err
	}
	for _, name := range sortedKeys(have) {
		ks := KeySpec{Owner: owner, Name: name, KeyEnv: envVar("HEARTH_APIKEY", owner, name)}
		if s := have[name].Scope; s != nil {
			ks.Scope = *s
		}
		out.Keys = append(out.Keys, ks)
	}
	return nil
}

func sortedKeys(m map[string]*engine.APIKey) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
