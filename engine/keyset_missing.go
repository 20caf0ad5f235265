package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ErrNoProviderKey is the cause of the error Keysets.Resolve returns when
// no key for a provider that needs one is found anywhere.
var ErrNoProviderKey = errors.New("no provider key")

// BackgroundKeyHint is the fix for a missing provider key in work that
// runs without a request (document ingestion): only a keyset or the
// server's key can serve it.
func BackgroundKeyHint(provider string) string {
	return fmt.Sprintf("no API key for provider %q: store it in your keyset (PUT /v1/keysets/%s) or set HEARTH_%s_API_KEY on the server, then retry the document (ingestion runs in the background, so an LB-LLM-Key header cannot serve it)",
		provider, provider, strings.ToUpper(strings.ReplaceAll(provider, "-", "_")))
}

// MissingKeyWarning returns a warning for creating a pipe or memory on
// provider when no key for it is found where a run or ingestion of owner's
// looks by itself (the owner's keyset, then the server's key) and the
// provider needs one; "" otherwise. Creating is not refused: a key sent
// with each run (LB-LLM-Key), stored later, or a pipe keyset still works.
// It reads the store, so it holds on any node of a cluster.
func (k *Keysets) MissingKeyWarning(ctx context.Context, provider, owner string) string {
	if k == nil || k.providers == nil || !k.providers.NeedsKey(provider) || k.providers.ServerKey(provider) != "" {
		return ""
	}
	if key, err := k.get(ctx, OwnerScope(owner), provider); err != nil || key != "" {
		return ""
	}
	return fmt.Sprintf("no API key for provider %q is configured: runs will fail until one is sent in the LB-LLM-Key header, stored in a keyset (PUT /v1/keysets/%s), or set as HEARTH_%s_API_KEY on the server",
		provider, provider, strings.ToUpper(strings.ReplaceAll(provider, "-", "_")))
}
