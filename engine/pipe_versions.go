package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"time"
)

// Pipe versions (docs/pipes-and-threads.md#pipe-versions): every write that changes a
// pipe's configuration (create, update, upsert, restore, apply) stores an
// immutable PipeVersion in the same transaction as the pipe, and the pipe
// record carries the number of the version it holds (Pipe.Version). The
// records live in the store, so every node of a cluster sees the same
// history; the version number is read and written inside the pipe's
// transaction, so two nodes changing one pipe at once conflict and one of
// them retries instead of both taking the same number.
//
// Key schema: pipever/<pipe id>/<number %010d> holds a PipeVersion; the
// records are deleted with their pipe.
const prefixPipeVersion = "pipever/"

func pipeVersionKey(id string, n int) string {
	return fmt.Sprintf("%s%s/%010d", prefixPipeVersion, id, n)
}

// PipeVersion is one immutable configuration of a pipe.
type PipeVersion struct {
	Number    int       `json:"version"`
	PipeID    string    `json:"pipe_id"`
	CreatedAt time.Time `json:"created_at"`
	// Author is the id of the key that made the change ("" for changes
	// made without a key, such as `hearth apply`).
	Author string `json:"author_key_id"`
	// Config is the full pipe as the change left it.
	Config Pipe `json:"config"`
}

// authorOf is the key id of the request's principal (WithPrincipal).
func authorOf(ctx context.Context) string {
	if p, _ := ctx.Value(principalKey{}).(*Principal); p != nil {
		return p.KeyID
	}
	return ""
}

// putVersion numbers p as the next version and stores the version record;
// the caller then stores p itself in the same tx.
func putVersion(ctx context.Context, tx Tx, p *Pipe) error {
	p.Version++
	v := PipeVersion{Number: p.Version, PipeID: p.ID, CreatedAt: p.UpdatedAt, Author: authorOf(ctx), Config: *p}
	return tx.Put(pipeVersionKey(p.ID, p.Version), &v)
}

// Versions lists the versions of an owner's pipe, oldest first.
func (ps *Pipes) Versions(ctx context.Context, owner, name string) ([]*PipeVersion, error) {
	out := []*PipeVersion{}
	err := ps.store.View(ctx, func(tx Tx) error {
		p, err := getPipe(tx, owner, name)
		if err != nil {
			return err
		}
		return scanJSON(tx, prefixPipeVersion+p.ID+"/", func(v *PipeVersion) error { out = append(out, v); return nil })
	})
	return out, err
}

// Version returns one version of an owner's pipe; a missing one is a
// NOT_FOUND naming field (the request field that named it).
func (ps *Pipes) Version(ctx context.Context, owner, name string, n int, field string) (*PipeVersion, error) {
	var v *PipeVersion
	err := ps.store.View(ctx, func(tx Tx) error {
		p, err := getPipe(tx, owner, name)
		if err != nil {
			return err
		}
		v, err = getVersion(tx, p, n, field)
		return err
	})
	return v, err
}

func getVersion(tx Tx, p *Pipe, n int, field string) (*PipeVersion, error) {
	var v PipeVersion
	err := tx.Get(pipeVersionKey(p.ID, n), &v)
	if IsNotFound(err) || n < 1 {
		return nil, &Error{Code: CodeNotFound, Field: field,
			Message: fmt.Sprintf("%s: pipe %q has no version %d (latest is %d)", field, p.Name, n, p.Version)}
	}
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// Restore makes version n the pipe's configuration again, as a new
// version. The pipe keeps its id, owner, name and creation time.
func (ps *Pipes) Restore(ctx context.Context, owner, name string, n int) (*Pipe, error) {
	var p *Pipe
	err := ps.store.Update(ctx, func(tx Tx) error {
		cur, err := getPipe(tx, owner, name)
		if err != nil {
			return err
		}
		v, err := getVersion(tx, cur, n, "version")
		if err != nil {
			return err
		}
		r := v.Config
		r.ID, r.Owner, r.Name, r.CreatedAt = cur.ID, cur.Owner, cur.Name, cur.CreatedAt
		r.Version = cur.Version
		r.UpdatedAt = ps.now().UTC()
		p = &r
		if err := putVersion(ctx, tx, p); err != nil {
			return err
		}
		if err := ps.publishPipe(tx, p.ID); err != nil {
			return err
		}
		return tx.Put(pipeKey(owner, p.Name), p)
	})
	if err != nil {
		return nil, err
	}
	ps.dropPipe(p.ID)
	return p, nil
}

// AtVersion returns p as it was at version n (p itself when n is 0 or
// p's own version), for running an older configuration. The result keeps
// p's id, owner and name so keys, keysets and threads still apply.
func (ps *Pipes) AtVersion(ctx context.Context, p *Pipe, n int) (*Pipe, error) {
	if n == 0 || n == p.Version {
		return p, nil
	}
	var v *PipeVersion
	err := ps.store.View(ctx, func(tx Tx) error {
		var err error
		v, err = getVersion(tx, p, n, "version")
		return err
	})
	if err != nil {
		return nil, err
	}
	r := v.Config
	r.ID, r.Owner, r.Name = p.ID, p.Owner, p.Name
	return &r, nil
}

// deleteVersions removes every version record of a pipe.
func deleteVersions(tx Tx, id string) error {
	var keys []string
	err := tx.Scan(prefixPipeVersion+id+"/", "", func(k string, _ []byte) error { keys = append(keys, k); return nil })
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := tx.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// FieldChange is one field that differs between two versions.
type FieldChange struct {
	Field string `json:"field"`
	From  any    `json:"from"`
	To    any    `json:"to"`
}

// diffIgnored are the fields of a version's config that are bookkeeping,
// not configuration.
var diffIgnored = map[string]bool{"id": true, "owner": true, "created_at": true, "updated_at": true, "version": true}

// DiffVersions returns the configuration fields that differ from a to b,
// by JSON field name, in name order. Whole values are compared: a changed
// messages array is one change holding both arrays.
func DiffVersions(a, b *PipeVersion) ([]FieldChange, error) {
	ma, err := pipeFields(&a.Config)
	if err != nil {
		return nil, err
	}
	mb, err := pipeFields(&b.Config)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for k := range ma {
		names[k] = true
	}
	for k := range mb {
		names[k] = true
	}
	out := []FieldChange{}
	for k := range names {
		if diffIgnored[k] || reflect.DeepEqual(ma[k], mb[k]) {
			continue
		}
		out = append(out, FieldChange{Field: k, From: ma[k], To: mb[k]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out, nil
}

func pipeFields(p *Pipe) (map[string]any, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	m := map[string]any{}
	return m, json.Unmarshal(b, &m)
}

// ParseVersion reads a version number from a path or query value.
func ParseVersion(field, s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, FieldError(field, "must be a version number (1 or more), got %q", s)
	}
	return n, nil
}
