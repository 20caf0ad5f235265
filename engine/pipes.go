package engine

import (
	"context"
	"errors"
	"strings"
	"time"
)

const (
	prefixPipe   = "pipe/"
	prefixPipeID = "pipeid/"
)

func pipeKey(owner, name string) string { return prefixPipe + owner + "/" + name }

// Pipes stores pipes and their keys.
//
// Visibility: a pipe belongs to its owner (a user or an org). The owner's
// user/org keys and the pipe's own keys reach it; "public" additionally
// lets any other authenticated user or org key read its configuration
// (Read). Running a pipe always needs the owner's key or the pipe's key:
// public never lets others spend the owner's provider keys.
type Pipes struct {
	store        Store
	accounts     *Accounts
	keysets      *Keysets
	providers    Providers
	memories     MemoryLookup
	defaultModel string
	now          func() time.Time
	cluster      Cluster
	cache        *gateCache[*Pipe] // nil: off (pipes_cache.go)
}

// PipesConfig holds the dependencies of Pipes. Providers, when set, makes
// create/update refuse models of unknown providers; Memories, when nil,
// defaults to StoreMemoryLookup.
type PipesConfig struct {
	Store     Store
	Accounts  *Accounts
	Keysets   *Keysets
	Providers Providers
	Memories  MemoryLookup
	// DefaultModel is the model of a v1-created pipe that names none
	// ("" = DefaultPipeModel).
	DefaultModel string
	// Cluster, when set, turns on the in-memory pipe cache of the run
	// path (off in shared mode) and carries pipe changes to other nodes.
	Cluster Cluster
}

// NewPipes returns the pipe service.
func NewPipes(cfg PipesConfig) *Pipes {
	m := cfg.Memories
	if m == nil {
		m = StoreMemoryLookup{Store: cfg.Store}
	}
	ps := &Pipes{store: cfg.Store, accounts: cfg.Accounts, keysets: cfg.Keysets, providers: cfg.Providers, memories: m,
		defaultModel: cfg.DefaultModel, now: time.Now}
	ps.enableCache(cfg.Cluster)
	return ps
}

// DefaultModel is the model of a pipe created without one.
func (ps *Pipes) DefaultModel() string {
	if ps.defaultModel != "" {
		return ps.defaultModel
	}
	return DefaultPipeModel
}

// NewPipeDefaults returns a pipe holding the v1 create defaults.
func NewPipeDefaults() *Pipe { return newPipeDefaults() }

// BetaPipeDefaults returns a pipe holding the beta create defaults: type
// generate, model openai:gpt-3.5-turbo, and the default system and opening
// prompts.
func BetaPipeDefaults() *Pipe {
	p := newPipeDefaults()
	p.Type = PipeGenerate
	p.Model = "openai:gpt-3.5-turbo"
	p.SetPrompt("", "You're a helpful AI assistant.")
	p.SetPrompt(PromptOpening, "Welcome! How can I help you today?")
	return p
}

// checkRefs verifies what the input names outside the pipe: the model's
// provider (when a registry is configured) and the memories. It runs only
// for fields present in the input, so an update that does not touch them
// is not refused because a memory was deleted since.
func (ps *Pipes) checkRefs(ctx context.Context, owner string, in *PipeInput, model string) error {
	if model != "" && ps.providers != nil {
		ref, err := ParseModelID(in.field("model"), model)
		if err != nil {
			return err
		}
		if _, err := ps.providers.ChatModel(ref); err != nil {
			return renameField(err, "model", in.field("model"))
		}
	}
	if in.FallbackModels != nil {
		if _, err := ParseFallbackModels(in.field("fallback_models"), *in.FallbackModels, ps.providers); err != nil {
			return err
		}
	}
	if in.Memory != nil {
		for i, m := range *in.Memory {
			if err := ValidatePipeName(fieldIndex(in.field("memory"), i)+".name", m.Name); err != nil {
				return err
			}
			ok, err := ps.memories.MemoryExists(ctx, owner, m.Name)
			if err != nil {
				return err
			}
			if !ok {
				return FieldError(fieldIndex(in.field("memory"), i)+".name", "memory %q not found", m.Name)
			}
		}
	}
	return checkMaxTokens(in.field("max_tokens"), in.MaxTokens)
}

// renameField re-labels a field error for callers that use other names.
func renameField(err error, from, to string) error {
	var e *Error
	if from == to || !errors.As(err, &e) || e.Field != from {
		return err
	}
	c := *e
	c.Field = to
	c.Message = to + strings.TrimPrefix(e.Message, from)
	return &c
}

// Create stores a new pipe and issues its key, in one transaction. base
// holds the defaults (NewPipeDefaults when nil). With upsert, an existing
// pipe of the same name is updated instead (only the fields in the input
// change) and key is "": a pipe key is shown once, at creation.
func (ps *Pipes) Create(ctx context.Context, owner string, base *Pipe, in *PipeInput, upsert bool) (p *Pipe, key string, created bool, err error) {
	if in.Name == nil || *in.Name == "" {
		return nil, "", false, FieldError(in.field("name"), "is required")
	}
	if err := ValidatePipeName(in.field("name"), *in.Name); err != nil {
		return nil, "", false, err
	}
	if err := ScopeOf(ctx).CheckPipeWrite("", in); err != nil {
		return nil, "", false, err
	}
	if base == nil {
		base = newPipeDefaults()
		base.Model = ps.DefaultModel()
	}
	model := base.Model
	if in.Model != nil {
		model = *in.Model
	}
	if err := ps.checkRefs(ctx, owner, in, model); err != nil {
		return nil, "", false, err
	}
	err = ps.store.Update(ctx, func(tx Tx) error {
		key, created = "", false
		var old Pipe
		err := tx.Get(pipeKey(owner, *in.Name), &old)
		switch {
		case err == nil && !upsert:
			return Errorf(CodeConflict, "pipe %q already exists (send upsert: true to update it)", *in.Name)
		case err == nil:
			p = &old
			in.apply(p)
			p.UpdatedAt = NowFrom(ctx, ps.now).UTC()
			if err := p.validate(in.field); err != nil {
				return err
			}
			if err := ps.publishPipe(tx, p.ID); err != nil {
				return err
			}
			if err := putVersion(ctx, tx, p); err != nil {
				return err
			}
			return tx.Put(pipeKey(owner, p.Name), p)
		case !errors.Is(err, ErrNotFound):
			return err
		}
		cp := *base
		p = &cp
		p.Messages = append([]Message{}, base.Messages...)
		in.apply(p)
		p.ID = "pipe_" + NewID(ctx, 20)
		p.Owner = owner
		p.CreatedAt = NowFrom(ctx, ps.now).UTC()
		p.UpdatedAt = p.CreatedAt
		if err := p.validate(in.field); err != nil {
			return err
		}
		if err := putVersion(ctx, tx, p); err != nil {
			return err
		}
		if err := tx.Put(pipeKey(owner, p.Name), p); err != nil {
			return err
		}
		if err := tx.PutRaw(prefixPipeID+p.ID, []byte(owner+"/"+p.Name)); err != nil {
			return err
		}
		_, key, err = ps.accounts.CreatePipeKeyTx(ctx, tx, owner, p.ID, "pipe "+p.Name)
		created = true
		return err
	})
	if err != nil {
		return nil, "", false, err
	}
	if !created {
		ps.dropPipe(p.ID)
	}
	return p, key, created, nil
}

// Get returns an owner's pipe by name.
func (ps *Pipes) Get(ctx context.Context, owner, name string) (*Pipe, error) {
	var p *Pipe
	err := ps.store.View(ctx, func(tx Tx) error {
		var err error
		p, err = getPipe(tx, owner, name)
		return err
	})
	return p, err
}

func getPipe(tx Tx, owner, name string) (*Pipe, error) {
	var p Pipe
	if err := tx.Get(pipeKey(owner, name), &p); err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, NotFound("pipe", name)
		}
		return nil, err
	}
	return &p, nil
}

// Read returns a pipe for a principal that may not own it: the owner's keys
// and the pipe's own keys see it; other user/org keys see it only when it
// is public. Anything else is NOT_FOUND, so private names are not confirmed.
func (ps *Pipes) Read(ctx context.Context, who *Principal, owner, name string) (*Pipe, error) {
	p, err := ps.Get(ctx, owner, name)
	if err != nil {
		return nil, err
	}
	switch {
	case who.Owner == owner && who.IsOwnerKey():
	case who.Kind == KeyPipe && who.PipeID == p.ID:
	case who.IsOwnerKey() && p.Status == StatusPublic:
	default:
		return nil, NotFound("pipe", name)
	}
	return p, nil
}

// List returns an owner's pipes in name order.
func (ps *Pipes) List(ctx context.Context, owner string) ([]*Pipe, error) {
	out := []*Pipe{}
	err := ps.store.View(ctx, func(tx Tx) error {
		return scanJSON(tx, prefixPipe+owner+"/", func(p *Pipe) error { out = append(out, p); return nil })
	})
	return out, err
}

// Update changes the fields present in the input. A different name in the
// input renames the pipe (its keys, keysets and runs follow it by id).
func (ps *Pipes) Update(ctx context.Context, owner, name string, in *PipeInput) (*Pipe, error) {
	if err := ScopeOf(ctx).CheckPipeWrite(name, in); err != nil {
		return nil, err
	}
	if err := ps.checkRefs(ctx, owner, in, derefOr(in.Model, "")); err != nil {
		return nil, err
	}
	var p *Pipe
	err := ps.store.Update(ctx, func(tx Tx) error {
		var err error
		if p, err = getPipe(tx, owner, name); err != nil {
			return err
		}
		in.apply(p)
		p.UpdatedAt = NowFrom(ctx, ps.now).UTC()
		if err := p.validate(in.field); err != nil {
			return err
		}
		if p.Name != name {
			if ok, err := tx.Exists(pipeKey(owner, p.Name)); err != nil {
				return err
			} else if ok {
				return FieldError(in.field("name"), "a pipe named %q already exists", p.Name)
			}
			if err := tx.Delete(pipeKey(owner, name)); err != nil {
				return err
			}
			if err := tx.PutRaw(prefixPipeID+p.ID, []byte(owner+"/"+p.Name)); err != nil {
				return err
			}
		}
		if err := ps.publishPipe(tx, p.ID); err != nil {
			return err
		}
		if err := putVersion(ctx, tx, p); err != nil {
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

func derefOr(s *string, def string) string {
	if s == nil {
		return def
	}
	return *s
}

// Delete removes a pipe, revokes its keys and deletes its keyset, in one
// transaction. Threads and run records of the pipe are kept.
func (ps *Pipes) Delete(ctx context.Context, owner, name string) error {
	var id string
	err := ps.store.Update(ctx, func(tx Tx) error {
		p, err := getPipe(tx, owner, name)
		if err != nil {
			return err
		}
		id = p.ID
		if err := ps.publishPipe(tx, p.ID); err != nil {
			return err
		}
		if err := tx.Delete(pipeKey(owner, name)); err != nil {
			return err
		}
		if err := tx.Delete(prefixPipeID + p.ID); err != nil {
			return err
		}
		if err := deleteVersions(tx, p.ID); err != nil {
			return err
		}
		if err := ps.accounts.RevokePipeKeysTx(tx, owner, p.ID); err != nil {
			return err
		}
		return ps.keysets.DeleteScopeTx(tx, PipeScope(p.ID))
	})
	if err == nil {
		ps.dropPipe(id)
		ps.accounts.dropPipeKeys(id)
	}
	return err
}

// RotateKey revokes every key of a pipe and issues a new one, returned once.
func (ps *Pipes) RotateKey(ctx context.Context, owner, name string) (*Pipe, string, error) {
	var p *Pipe
	var key string
	err := ps.store.Update(ctx, func(tx Tx) error {
		var err error
		if p, err = getPipe(tx, owner, name); err != nil {
			return err
		}
		if err := ps.accounts.RevokePipeKeysTx(tx, owner, p.ID); err != nil {
			return err
		}
		_, key, err = ps.accounts.CreatePipeKeyTx(ctx, tx, owner, p.ID, "pipe "+p.Name)
		return err
	})
	if err != nil {
		return nil, "", err
	}
	ps.accounts.dropPipeKeys(p.ID)
	return p, key, nil
}
