package engine

import (
	"context"
	"crypto/cipher"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Keysets store provider API keys per owner (user or org) and per pipe,
// encrypted at rest with AES-256-GCM. A stored key is never returned in
// full: listings show only its last four characters.
//
// Key schema: keyset/<scope>/<provider> where scope is "owner:<login>" or
// "pipe:<pipeID>".
type Keysets struct {
	store     Store
	providers Providers
	aead      cipher.AEAD
	now       func() time.Time
	// cluster and cache: keyset_cache.go.
	cluster Cluster
	cache   *gateCache[keysetHit]
}

// KeysetEntry is one stored provider key as shown to its owner.
type KeysetEntry struct {
	Provider  string    `json:"provider"`
	Last4     string    `json:"last4"`
	UpdatedAt time.Time `json:"updated_at"`
}

type keysetRecord struct {
	Provider   string    `json:"provider"`
	Nonce      []byte    `json:"nonce"`
	Ciphertext []byte    `json:"ciphertext"`
	Last4      string    `json:"last4"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// NewKeysets returns the keyset service. secret must be 32 bytes; it is
// kept in the data dir or given by HEARTH_SECRET_KEY (main.go decides).
func NewKeysets(store Store, providers Providers, secret []byte) (*Keysets, error) {
	aead, err := newSecretAEAD("keysets", secret)
	if err != nil {
		return nil, err
	}
	return &Keysets{store: store, providers: providers, aead: aead, now: time.Now}, nil
}

// OwnerScope and PipeScope name the two kinds of keyset.
func OwnerScope(login string) string { return "owner:" + login }
func PipeScope(pipeID string) string { return "pipe:" + pipeID }

func keysetKey(scope, provider string) string { return "keyset/" + scope + "/" + provider }

func (k *Keysets) checkProvider(provider string) (string, error) {
	p := strings.ToLower(strings.TrimSpace(provider))
	if !providerRE.MatchString(p) {
		return "", FieldError("provider", "%q is not a provider name (lowercase letters, digits and '-')", provider)
	}
	if k.providers != nil {
		if !k.providers.Known(p) {
			return "", FieldError("provider", "unknown provider %q (see GET /v1/models)", provider)
		}
	}
	return p, nil
}

var providerRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,39}$`)

// Set stores (or replaces) the key of a provider in a scope.
func (k *Keysets) Set(ctx context.Context, scope, provider, apiKey string) (*KeysetEntry, error) {
	p, err := k.checkProvider(provider)
	if err != nil {
		return nil, err
	}
	apiKey = strings.TrimSpace(apiKey)
	if apiKey == "" {
		return nil, FieldError("key", "must not be empty")
	}
	if err := CheckHeaderValue("key", apiKey); err != nil {
		return nil, err
	}
	if len(apiKey) > 4096 {
		return nil, FieldError("key", "must be at most 4096 characters")
	}
	nonce, ciphertext, err := sealSecret(k.aead, apiKey, scope+"/"+p)
	if err != nil {
		return nil, err
	}
	last4, err := poolLast4(apiKey)
	if err != nil {
		return nil, err
	}
	rec := keysetRecord{
		Provider: p, Nonce: nonce, Last4: last4, UpdatedAt: NowFrom(ctx, k.now).UTC(),
		Ciphertext: ciphertext,
	}
	err = k.store.Update(ctx, func(tx Tx) error {
		if err := k.publishScope(tx, scope); err != nil {
			return err
		}
		return tx.Put(keysetKey(scope, p), &rec)
	})
	k.cache.drop(scope)
	if err != nil {
		return nil, err
	}
	return &KeysetEntry{Provider: p, Last4: last4, UpdatedAt: rec.UpdatedAt}, nil
}

// Delete removes a provider key from a scope.
func (k *Keysets) Delete(ctx context.Context, scope, provider string) error {
	p := strings.ToLower(provider)
	defer k.cache.drop(scope)
	return k.store.Update(ctx, func(tx Tx) error {
		if ok, err := tx.Exists(keysetKey(scope, p)); err != nil {
			return err
		} else if !ok {
			return NotFound("keyset entry", p)
		}
		if err := k.publishScope(tx, scope); err != nil {
			return err
		}
		return tx.Delete(keysetKey(scope, p))
	})
}

// DeleteScopeTx removes every key of a scope (a deleted pipe's keys).
func (k *Keysets) DeleteScopeTx(tx Tx, scope string) error {
	k.cache.drop(scope)
	if err := k.publishScope(tx, scope); err != nil {
		return err
	}
	var keys []string
	if err := tx.Scan("keyset/"+scope+"/", "", func(key string, _ []byte) error {
		keys = append(keys, key)
		return nil
	}); err != nil {
		return err
	}
	for _, key := range keys {
		if err := tx.Delete(key); err != nil {
			return err
		}
	}
	return nil
}

// List returns the masked entries of a scope, by provider.
func (k *Keysets) List(ctx context.Context, scope string) ([]KeysetEntry, error) {
	out := []KeysetEntry{}
	err := k.store.View(ctx, func(tx Tx) error {
		return scanJSON(tx, "keyset/"+scope+"/", func(r *keysetRecord) error {
			out = append(out, KeysetEntry{Provider: r.Provider, Last4: r.Last4, UpdatedAt: r.UpdatedAt})
			return nil
		})
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Provider < out[j].Provider })
	return out, err
}

func (k *Keysets) get(ctx context.Context, scope, provider string) (string, error) {
	var rec keysetRecord
	err := k.store.View(ctx, func(tx Tx) error { return tx.Get(keysetKey(scope, provider), &rec) })
	if errors.Is(err, ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	plain, err := k.aead.Open(nil, rec.Nonce, rec.Ciphertext, []byte(scope+"/"+provider))
	if err != nil {
		return "", undecryptableError(scope, provider, err)
	}
	return string(plain), nil
}

// Resolve picks the provider key for a call, in order: the request's own
// key (LB-LLM-Key), the pipe's keyset, the owner's keyset, the server-wide
// key (HEARTH_<PROVIDER>_API_KEY). Providers that need no key (local ones
// and the built-in test models) resolve to "". Otherwise a missing key is a
// BAD_REQUEST that says which provider's key is missing and how to give it.
func (k *Keysets) Resolve(ctx context.Context, provider, requestKey, pipeID, owner string) (string, error) {
	if requestKey = strings.TrimSpace(requestKey); requestKey != "" {
		if err := CheckHeaderValue("LB-LLM-Key", requestKey); err != nil {
			return "", err
		}
		return requestKey, nil
	}
	if key, err := k.first(ctx, provider, pipeID, owner); err != nil || key != "" {
		return key, err
	}
	if k.providers != nil {
		if key := k.providers.ServerKey(provider); key != "" {
			return key, nil
		}
		if !k.providers.NeedsKey(provider) {
			return "", nil
		}
	}
	return "", &Error{Code: CodeBadRequest, Err: ErrNoProviderKey, Message: fmt.Sprintf("no API key for provider %q: send it in the LB-LLM-Key header, store it in a keyset (PUT /v1/keysets/%s), or set HEARTH_%s_API_KEY on the server",
		provider, provider, strings.ToUpper(strings.ReplaceAll(provider, "-", "_")))}
}

// CheckHeaderValue refuses a key-like value that is sent upstream in an
// HTTP header (provider keys, web search and crawl keys, MCP tokens and
// custom headers) when it holds a control character: NUL, CR, LF or any
// other byte below 0x20, or DEL. Such a value cannot be a real key, would
// be refused by Go's HTTP client only at call time, and in a stored keyset
// would break every later run of its owner; refusing it on write names the
// field instead (https://www.rfc-editor.org/rfc/rfc9110#section-5.5).
func CheckHeaderValue(field, v string) error {
	for i := 0; i < len(v); i++ {
		if b := v[i]; b < 0x20 || b == 0x7f {
			return FieldError(field, "must not contain control characters (found byte 0x%02x at offset %d; NUL, CR, LF, tab and other bytes below 0x20 are refused)", b, i)
		}
	}
	return nil
}

// poolLast4 shows a stored key by its last four characters; a key pool
// (comma-separated keys, docs/providers.md#key-pools) by those of each key.
func poolLast4(apiKey string) (string, error) {
	var shown []string
	for i, k := range strings.Split(apiKey, ",") {
		k = strings.TrimSpace(k)
		if k == "" {
			return "", FieldError("key", "key %d of the comma-separated pool is empty", i+1)
		}
		if len(k) > 4 {
			k = k[len(k)-4:]
		}
		shown = append(shown, k)
	}
	return strings.Join(shown, ","), nil
}
