package engine

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine/guard"
)

// Scope limits what a user or org key may do (docs/accounts-and-keys.md#scoped-keys). The
// zero value limits nothing. A scope is fixed when the key is created and
// stored on its APIKey record; the principal of every request carries it,
// including the one the key cache keeps, so a node checks it without a
// store read. Scopes never change after creation, so the cached copy is
// always the stored one on every node; revoking the key (shared through
// the store and TopicKey) is how a scope is withdrawn.
type Scope struct {
	// ExpiresAt, when set, is when the key stops working (401 after it).
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	// Models lists the models the key may call: "provider" allows every
	// model of a provider, "provider:model" one model. Empty: any.
	Models []string `json:"models,omitempty"`
	// Pipes and Memories list the names the key may use. Empty: any.
	Pipes    []string `json:"pipes,omitempty"`
	Memories []string `json:"memories,omitempty"`
	// ReadOnly keys read and run but change nothing (docs/accounts-and-keys.md#scoped-keys).
	ReadOnly bool `json:"read_only,omitempty"`
	// Guard is the key's guardrail policy, merged with the server's and
	// the pipe's on every call the key makes (docs/guardrails.md).
	Guard *guard.Policy `json:"guard,omitempty"`
	// Cache is the response cache mode ("on" or "off") of the key's
	// requests that choose none (docs/response-cache.md). It limits
	// nothing, so a scope with only Cache is Empty.
	Cache string `json:"cache,omitempty"`
}

// Empty reports whether the scope limits nothing.
func (s *Scope) Empty() bool {
	return s == nil || (s.ExpiresAt == nil && len(s.Models) == 0 && len(s.Pipes) == 0 && len(s.Memories) == 0 && !s.ReadOnly && s.Guard.Empty())
}

// unset reports whether the scope limits nothing and sets nothing, so the
// key is stored without one.
func (s *Scope) unset() bool { return s.Empty() && (s == nil || s.Cache == "") }

// CacheMode is the key's response cache mode ("" for none).
func (s *Scope) CacheMode() string {
	if s == nil {
		return ""
	}
	return s.Cache
}

// Validate checks a scope sent at key creation; now is the creation time.
func (s *Scope) Validate(now time.Time) error {
	if s == nil {
		return nil
	}
	switch s.Cache {
	case "", CacheOn, CacheOff:
	default:
		return FieldError("cache", "must be on or off, got %q", s.Cache)
	}
	if s.ExpiresAt != nil && !s.ExpiresAt.After(now) {
		return FieldError("expires_at", "must be in the future, got %s", s.ExpiresAt.UTC().Format(time.RFC3339))
	}
	for i, m := range s.Models {
		f := fieldIndex("models", i)
		if strings.Contains(m, ":") {
			if _, err := ParseModelID(f, m); err != nil {
				return err
			}
		} else if m == "" {
			return FieldError(f, "must be a provider (openai) or a provider:model (openai:gpt-4o-mini)")
		}
	}
	for i, n := range s.Pipes {
		if err := ValidatePipeName(fieldIndex("pipes", i), n); err != nil {
			return err
		}
	}
	for i, n := range s.Memories {
		if err := ValidatePipeName(fieldIndex("memories", i), n); err != nil {
			return err
		}
	}
	return validateGuard("guard", s.Guard)
}

// CheckExpiry refuses a key whose scope expired by now.
func (s *Scope) CheckExpiry(now time.Time) error {
	if s == nil || s.ExpiresAt == nil || now.Before(*s.ExpiresAt) {
		return nil
	}
	return &Error{Code: CodeUnauthorized, Field: "expires_at",
		Message: "this API key expired at " + s.ExpiresAt.UTC().Format(time.RFC3339) + " (its expires_at scope)"}
}

// CheckPipe refuses a pipe outside the scope.
func (s *Scope) CheckPipe(name string) error {
	if s == nil || len(s.Pipes) == 0 || slices.Contains(s.Pipes, name) {
		return nil
	}
	return &Error{Code: CodeForbidden, Field: "pipes",
		Message: "this API key's pipes scope does not include the pipe " + quote(name)}
}

// CheckMemory refuses a memory outside the scope.
func (s *Scope) CheckMemory(name string) error {
	if s == nil || len(s.Memories) == 0 || slices.Contains(s.Memories, name) {
		return nil
	}
	return &Error{Code: CodeForbidden, Field: "memories",
		Message: "this API key's memories scope does not include the memory " + quote(name)}
}

// CheckMemories is CheckMemory for each reference.
func (s *Scope) CheckMemories(refs []MemoryRef) error {
	for _, r := range refs {
		if err := s.CheckMemory(r.Name); err != nil {
			return err
		}
	}
	return nil
}

// CheckModels refuses any model outside the scope.
func (s *Scope) CheckModels(refs ...ModelRef) error {
	if s == nil || len(s.Models) == 0 {
		return nil
	}
	for _, r := range refs {
		if !slices.Contains(s.Models, r.Provider) && !slices.Contains(s.Models, r.String()) {
			return &Error{Code: CodeForbidden, Field: "models",
				Message: "this API key's models scope does not include the model " + quote(r.String())}
		}
	}
	return nil
}

func quote(s string) string { return `"` + s + `"` }

type principalKey struct{}

// WithPrincipal returns ctx carrying the principal of the request: pipe
// versions record its key as their author, and the model paths check its
// scope (ScopeOf).
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalOf returns the principal WithPrincipal put in ctx, or nil.
func PrincipalOf(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}

// ScopeOf returns the scope of the request's principal (nil: none).
func ScopeOf(ctx context.Context) *Scope {
	if p, _ := ctx.Value(principalKey{}).(*Principal); p != nil {
		return p.Scope
	}
	return nil
}

// SetClock replaces the clock that dates keys and checks their expiry
// (time.Now by default). Call it before serving; tests use it to pass an
// expiry without waiting.
func (a *Accounts) SetClock(now func() time.Time) { a.now = now }

// ImportScopedKey stores a caller-chosen key limited by scope for an owner
// (declared keys of docs/pipes-as-code.md); a nil or empty scope makes an
// ordinary key. The secret must be at least 16 characters and not already
// registered.
func (a *Accounts) ImportScopedKey(ctx context.Context, owner, name, secret string, scope *Scope) (*APIKey, error) {
	if len(secret) < 16 {
		return nil, FieldError("key", "must be at least 16 characters")
	}
	if err := scope.Validate(a.now()); err != nil {
		return nil, err
	}
	if scope.unset() {
		scope = nil
	}
	rec, _, err := a.ownerKey(ctx, owner, name, secret, scope)
	return rec, err
}
