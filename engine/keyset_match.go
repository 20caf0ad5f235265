package engine

import (
	"context"
	"crypto/subtle"
)

// Holds reports whether scope's stored key for provider equals apiKey,
// compared in constant time; false when none is stored. Declarative
// setup (hearth apply) uses it to leave an unchanged key alone without
// ever showing the stored one.
func (k *Keysets) Holds(ctx context.Context, scope, provider, apiKey string) (bool, error) {
	cur, err := k.get(ctx, scope, provider)
	if err != nil || cur == "" {
		return false, err
	}
	return subtle.ConstantTimeCompare([]byte(cur), []byte(apiKey)) == 1, nil
}
