package engine

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"strings"
	"time"
)

// Key kinds. User and org keys act for their owner; a pipe key can only run
// the one pipe it belongs to.
const (
	KeyUser = "user"
	KeyOrg  = "org"
	KeyPipe = "pipe"
)

// APIKey is the stored record of a key. The key itself is never stored: only
// its SHA-256 hash (keys carry 190 bits of randomness, so a fast hash is safe).
type APIKey struct {
	ID        string     `json:"id"`
	Kind      string     `json:"kind"`
	Owner     string     `json:"owner"`
	PipeID    string     `json:"pipe_id,omitempty"`
	Name      string     `json:"name,omitempty"`
	Prefix    string     `json:"prefix"`
	Hash      string     `json:"hash"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
	// Scope limits a user or org key (apikey_scope.go); nil: none.
	Scope *Scope `json:"scope,omitempty"`
}

// Principal is who a request acts as, resolved from its bearer key.
type Principal struct {
	KeyID string
	Kind  string // KeyUser, KeyOrg or KeyPipe
	// Owner is the login whose resources the key reaches.
	Owner string
	// PipeID is set for pipe keys.
	PipeID string
	// Scope is the key's scope (nil: none); shared, never modified.
	Scope *Scope
}

// IsOwnerKey reports whether the principal is a user or org key.
func (p *Principal) IsOwnerKey() bool { return p.Kind == KeyUser || p.Kind == KeyOrg }

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// RandomString returns n random base62 characters read from crypto/rand.
func RandomString(n int) string { return randomWithPrefix("", n, cryptoRead) }

// cryptoRead fills b from crypto/rand.
func cryptoRead(b []byte) {
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
}

// randomWithPrefix returns prefix followed by n random base62 characters
// drawn from read, in one allocation.
func randomWithPrefix(prefix string, n int, read func([]byte)) string {
	// Rejection sampling on random bytes: a byte below 248 (4×62) maps to
	// byte%62 with equal weight; the rest (3 %) are drawn again. One read
	// per batch instead of one big.Int per character.
	const accept = 4 * len(base62)
	var out strings.Builder
	out.Grow(len(prefix) + n)
	out.WriteString(prefix)
	end := len(prefix) + n
	var pool [64]byte
	for out.Len() < end {
		want := min(len(pool), end-out.Len()+n/16+2)
		read(pool[:want])
		for _, c := range pool[:want] {
			if int(c) < accept && out.Len() < end {
				out.WriteByte(base62[int(c)%len(base62)])
			}
		}
	}
	return out.String()
}

// NewKeySecret returns a fresh API key of a kind: "hth_<kind>_<32 base62>".
func NewKeySecret(kind string) string { return "hth_" + kind + "_" + RandomString(32) }

// CreateKey issues a user or org key for an owner and returns the record
// and the key, which is shown once and never again.
func (a *Accounts) CreateKey(ctx context.Context, owner, name string) (*APIKey, string, error) {
	return a.ownerKey(ctx, owner, name, "", nil)
}

// CreateScopedKey is CreateKey for a key limited by scope
// (docs/accounts-and-keys.md#scoped-keys); a nil or empty scope makes an
// ordinary key.
func (a *Accounts) CreateScopedKey(ctx context.Context, owner, name string, scope *Scope) (*APIKey, string, error) {
	if err := scope.Validate(a.now()); err != nil {
		return nil, "", err
	}
	if scope.unset() {
		scope = nil
	}
	return a.ownerKey(ctx, owner, name, "", scope)
}

// ImportKey stores a caller-chosen key (HEARTH_ADMIN_KEY) for an owner.
func (a *Accounts) ImportKey(ctx context.Context, owner, name, secret string) (*APIKey, error) {
	if len(secret) < 16 {
		return nil, FieldError("key", "must be at least 16 characters")
	}
	rec, _, err := a.ownerKey(ctx, owner, name, secret, nil)
	return rec, err
}

// ownerKey stores a user or org key (kind from the account) for an owner;
// an empty secret means a generated one.
func (a *Accounts) ownerKey(ctx context.Context, owner, name, secret string, scope *Scope) (*APIKey, string, error) {
	var rec *APIKey
	err := a.store.Update(ctx, func(tx Tx) error {
		acct, err := getAccount(tx, strings.ToLower(owner), "")
		if err != nil {
			return err
		}
		kind := KeyUser
		if acct.Kind == AccountOrg {
			kind = KeyOrg
		}
		rec, secret, err = a.putKey(ctx, tx, kind, acct.Login, "", name, secret, scope)
		return err
	})
	return rec, secret, err
}

// CreatePipeKeyTx issues a pipe key inside a caller's transaction, so a pipe
// and its key are written together.
func (a *Accounts) CreatePipeKeyTx(ctx context.Context, tx Tx, owner, pipeID, name string) (*APIKey, string, error) {
	return a.putKey(ctx, tx, KeyPipe, owner, pipeID, name, "", nil)
}

func (a *Accounts) putKey(ctx context.Context, tx Tx, kind, owner, pipeID, name, secret string, scope *Scope) (*APIKey, string, error) {
	if secret == "" {
		// Drawn from the request's IDSource: in deterministic mode a
		// generated key is predictable (docs/hearth-in-your-tests.md#deterministic-mode).
		secret = "hth_" + kind + "_" + NewID(ctx, 32)
	}
	hash := HashKey(secret)
	if ok, err := tx.Exists(prefixAPIKeyHash + hash); err != nil {
		return nil, "", err
	} else if ok {
		return nil, "", Errorf(CodeConflict, "this key is already registered")
	}
	prefix := secret
	if len(prefix) > 12 {
		prefix = prefix[:12]
	}
	rec := &APIKey{
		ID: "key_" + NewID(ctx, 16), Kind: kind, Owner: owner, PipeID: pipeID, Name: name,
		Prefix: prefix, Hash: hash, CreatedAt: NowFrom(ctx, a.now).UTC(), Scope: scope,
	}
	if err := tx.Put(prefixAPIKey+rec.ID, rec); err != nil {
		return nil, "", err
	}
	if err := tx.PutRaw(prefixAPIKeyHash+hash, []byte(rec.ID)); err != nil {
		return nil, "", err
	}
	if err := tx.PutRaw(prefixAPIKeyOwner+owner+"/"+rec.ID, nil); err != nil {
		return nil, "", err
	}
	return rec, secret, nil
}

// ListKeys returns the keys of an owner (revoked ones included, marked).
func (a *Accounts) ListKeys(ctx context.Context, owner string) ([]*APIKey, error) {
	var out []*APIKey
	owner = strings.ToLower(owner)
	err := a.store.View(ctx, func(tx Tx) error {
		if _, err := getAccount(tx, owner, ""); err != nil {
			return err
		}
		return tx.Scan(prefixAPIKeyOwner+owner+"/", "", func(key string, _ []byte) error {
			var k APIKey
			if err := tx.Get(prefixAPIKey+key[strings.LastIndexByte(key, '/')+1:], &k); err != nil {
				return err
			}
			out = append(out, &k)
			return nil
		})
	})
	return out, err
}

// RevokeKey revokes a key by id. When owner is non-empty the key must
// belong to it (a NOT_FOUND otherwise, so ids of others are not confirmed).
func (a *Accounts) RevokeKey(ctx context.Context, owner, id string) error {
	err := a.store.Update(ctx, func(tx Tx) error {
		var k APIKey
		if err := tx.Get(prefixAPIKey+id, &k); err != nil {
			if errors.Is(err, ErrNotFound) {
				return NotFound("key", id)
			}
			return err
		}
		if owner != "" && k.Owner != strings.ToLower(owner) {
			return NotFound("key", id)
		}
		if k.RevokedAt != nil {
			return nil
		}
		now := NowFrom(ctx, a.now).UTC()
		k.RevokedAt = &now
		if err := tx.Delete(prefixAPIKeyHash + k.Hash); err != nil {
			return err
		}
		if err := a.publishKey(tx, k.ID); err != nil {
			return err
		}
		return tx.Put(prefixAPIKey+k.ID, &k)
	})
	if err == nil {
		a.keys.drop(id)
	}
	return err
}

// RevokePipeKeysTx revokes every key bound to a pipe inside a caller's
// transaction. The caller drops the cached keys after its transaction
// commits (dropPipeKeys).
func (a *Accounts) RevokePipeKeysTx(tx Tx, owner, pipeID string) error {
	var ids []string
	err := tx.Scan(prefixAPIKeyOwner+owner+"/", "", func(key string, _ []byte) error {
		ids = append(ids, key[strings.LastIndexByte(key, '/')+1:])
		return nil
	})
	if err != nil {
		return err
	}
	now := a.now().UTC()
	for _, id := range ids {
		var k APIKey
		if err := tx.Get(prefixAPIKey+id, &k); err != nil {
			return err
		}
		if k.PipeID != pipeID || k.RevokedAt != nil {
			continue
		}
		k.RevokedAt = &now
		if err := tx.Delete(prefixAPIKeyHash + k.Hash); err != nil {
			return err
		}
		if err := a.publishKey(tx, id); err != nil {
			return err
		}
		if err := tx.Put(prefixAPIKey+id, &k); err != nil {
			return err
		}
	}
	return nil
}

// Authenticate resolves a bearer key to a principal. Unknown and revoked keys
// get the same UNAUTHORIZED error.
func (a *Accounts) Authenticate(ctx context.Context, secret string) (*Principal, error) {
	return a.authenticate(ctx, secret, nil)
}

// authenticate is Authenticate writing the principal to dst (nil: a new
// one).
func (a *Accounts) authenticate(ctx context.Context, secret string, dst *Principal) (*Principal, error) {
	if dst == nil {
		dst = new(Principal)
	}
	if secret == "" {
		return nil, Errorf(CodeUnauthorized, "missing API key: send Authorization: Bearer <key>")
	}
	var hb [keyHashLen]byte // the hash on the stack: a cached key costs no string
	hashKeyTo(&hb, secret)
	c, ok, gen := a.keys.getBytes(hb[:])
	if ok {
		if err := c.Scope.CheckExpiry(a.now()); err != nil {
			return nil, err
		}
		*dst = c
		return dst, nil
	}
	hash := string(hb[:])
	var p *Principal
	err := a.store.View(ctx, func(tx Tx) error {
		id, err := tx.GetRaw(prefixAPIKeyHash + hash)
		if errors.Is(err, ErrNotFound) {
			return Errorf(CodeUnauthorized, "invalid API key")
		}
		if err != nil {
			return err
		}
		var k APIKey
		if err := tx.Get(prefixAPIKey+string(id), &k); err != nil {
			if errors.Is(err, ErrNotFound) {
				return Errorf(CodeUnauthorized, "invalid API key")
			}
			return err
		}
		if k.RevokedAt != nil || subtle.ConstantTimeCompare([]byte(k.Hash), []byte(hash)) != 1 {
			return Errorf(CodeUnauthorized, "invalid API key")
		}
		p = dst
		*p = Principal{KeyID: k.ID, Kind: k.Kind, Owner: k.Owner, PipeID: k.PipeID, Scope: k.Scope}
		return nil
	})
	if err != nil {
		return nil, err
	}
	a.cachePrincipal(gen, hash, p)
	if err := p.Scope.CheckExpiry(a.now()); err != nil {
		return nil, err
	}
	return p, nil
}
