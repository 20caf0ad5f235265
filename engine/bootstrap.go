package engine

import (
	"context"
	"strings"
)

// Bootstrap creates the first user on an empty data dir. Its key is adminKey
// when given, otherwise a generated one, returned so the caller can print it
// once. On a data dir that already has accounts it does nothing. The check
// and the writes are one transaction, so of several nodes starting together
// on one shared store exactly one creates the user: the others' transactions
// conflict with it, run again and find the account there.
func (a *Accounts) Bootstrap(ctx context.Context, login, adminKey string) (created bool, key string, err error) {
	login = strings.ToLower(login)
	if err := ValidateLogin("login", login); err != nil {
		return false, "", err
	}
	if adminKey != "" && len(adminKey) < 16 {
		return false, "", FieldError("key", "must be at least 16 characters")
	}
	name := "admin (generated)"
	if adminKey != "" {
		name = "admin (HEARTH_ADMIN_KEY)"
	}
	err = a.store.Update(ctx, func(tx Tx) error {
		created, key = false, ""
		empty := true
		if err := tx.Scan(prefixAccount, "", func(string, []byte) error { empty = false; return ErrStopScan }); err != nil {
			return err
		}
		if !empty {
			return nil
		}
		acct := &Account{Login: login, Kind: AccountUser, Admin: true, CreatedAt: a.now().UTC()}
		if err := tx.Put(prefixAccount+login, acct); err != nil {
			return err
		}
		_, secret, err := a.putKey(ctx, tx, KeyUser, login, "", name, adminKey, nil)
		if err != nil {
			return err
		}
		created = true
		if adminKey == "" {
			key = secret
		}
		return nil
	})
	if err != nil {
		return false, "", err
	}
	return created, key, nil
}
