package engine

import (
	"context"
	"fmt"
	"strings"
)

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
