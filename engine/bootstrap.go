package engine

import "context"

// Bootstrap creates the first user on an empty data dir. Its key is adminKey
// when given, otherwise a generated one, returned so the caller can print it
// once. On a data dir that already has accounts it does nothing.
func (a *Accounts) Bootstrap(ctx context.Context, login, adminKey string) (created bool, key string, err error) {
	empty, err := a.Empty(ctx)
	if err != nil || !empty {
		return false, "", err
	}
	if _, err := a.CreateAdmin(ctx, login); err != nil {
		return false, "", err
	}
	if adminKey != "" {
		_, err = a.ImportKey(ctx, login, "admin (HEARTH_ADMIN_KEY)", adminKey)
		return err == nil, "", err
	}
	_, key, err = a.CreateKey(ctx, login, "admin (generated)")
	return err == nil, key, err
}
