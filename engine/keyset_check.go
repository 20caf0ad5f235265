package engine

import (
	"context"
	"encoding/json"
	"strings"
)

// Undecryptable lists the stored keysets ("<scope>/<provider>", scope
// owner:<login> or pipe:<pipeID>) that this service's secret cannot
// decrypt, with the number of keysets stored. After a restore on a server
// without the old secret key every keyset is listed: "hearth restore" runs
// this and says what to do.
func (k *Keysets) Undecryptable(ctx context.Context) (bad []string, total int, err error) {
	err = k.store.View(ctx, func(tx Tx) error {
		return tx.Scan("keyset/", "", func(key string, value []byte) error {
			name := strings.TrimPrefix(key, "keyset/")
			total++
			var rec keysetRecord
			if json.Unmarshal(value, &rec) != nil {
				bad = append(bad, name)
				return nil
			}
			if _, err := k.aead.Open(nil, rec.Nonce, rec.Ciphertext, []byte(name)); err != nil {
				bad = append(bad, name)
			}
			return nil
		})
	})
	return bad, total, err
}

// undecryptableError is the error of a run whose keyset cannot be
// decrypted: it names the keyset and the fixes.
func undecryptableError(scope, provider string, err error) error {
	return Wrap(err, CodePreconditionFailed, "the stored %s key of keyset %s cannot be decrypted with this server's secret key "+
		"(HEARTH_SECRET_KEY or <data>/secret.key differs from the one that stored it, e.g. after a restore without the old secret.key): "+
		"start the server with the original secret key, or store the key again (PUT /v1/keysets/%s)", provider, scope, provider)
}
