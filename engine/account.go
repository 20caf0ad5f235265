package engine

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Account kinds. Users and organizations share one namespace of logins.
const (
	AccountUser = "user"
	AccountOrg  = "org"
)

// Account is a user or an organization, identified by its login.
type Account struct {
	Login     string    `json:"login"`
	Kind      string    `json:"kind"`
	CreatedAt time.Time `json:"created_at"`
	// Members lists the user logins of an organization (the first is its owner).
	Members []string `json:"members,omitempty"`
	// Admin marks the operator user created on first start: it may take
	// online backups over HTTP.
	Admin bool `json:"admin,omitempty"`
}

var loginRE = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9_-]{0,38})$`)

// ValidateLogin checks a login name: 1 to 39 lowercase letters, digits, '-'
// or '_', starting with a letter or digit.
func ValidateLogin(field, login string) error {
	if !loginRE.MatchString(login) {
		return FieldError(field, "%q is not a valid login: use 1-39 lowercase letters, digits, '-' or '_', starting with a letter or digit", login)
	}
	return nil
}

// Accounts manages users, organizations and API keys.
type Accounts struct {
	store   Store
	now     func() time.Time
	cluster Cluster
	keys    *gateCache[Principal] // nil: off (apikey_cache.go)
}

// NewAccounts returns the accounts service over store.
func NewAccounts(store Store) *Accounts {
	return &Accounts{store: store, now: time.Now}
}

// CreateUser creates a user account.
func (a *Accounts) CreateUser(ctx context.Context, login string) (*Account, error) {
	return a.create(ctx, &Account{Login: strings.ToLower(login), Kind: AccountUser})
}

// CreateAdmin creates the operator user (see Account.Admin).
func (a *Accounts) CreateAdmin(ctx context.Context, login string) (*Account, error) {
	return a.create(ctx, &Account{Login: strings.ToLower(login), Kind: AccountUser, Admin: true})
}

// CreateOrg creates an organization owned by an existing user.
func (a *Accounts) CreateOrg(ctx context.Context, login, owner string) (*Account, error) {
	acct := &Account{Login: strings.ToLower(login), Kind: AccountOrg, Members: []string{strings.ToLower(owner)}}
	return a.create(ctx, acct)
}

func (a *Accounts) create(ctx context.Context, acct *Account) (*Account, error) {
	if err := ValidateLogin("login", acct.Login); err != nil {
		return nil, err
	}
	acct.CreatedAt = NowFrom(ctx, a.now).UTC()
	err := a.store.Update(ctx, func(tx Tx) error {
		if ok, err := tx.Exists(prefixAccount + acct.Login); err != nil {
			return err
		} else if ok {
			return Errorf(CodeConflict, "login %q is already taken", acct.Login)
		}
		for _, m := range acct.Members {
			if _, err := getAccount(tx, m, AccountUser); err != nil {
				return err
			}
		}
		return tx.Put(prefixAccount+acct.Login, acct)
	})
	if err != nil {
		return nil, err
	}
	return acct, nil
}

// AddMember adds an existing user to an organization.
func (a *Accounts) AddMember(ctx context.Context, org, user string) error {
	org, user = strings.ToLower(org), strings.ToLower(user)
	return a.store.Update(ctx, func(tx Tx) error {
		o, err := getAccount(tx, org, AccountOrg)
		if err != nil {
			return err
		}
		if _, err := getAccount(tx, user, AccountUser); err != nil {
			return err
		}
		if slices.Contains(o.Members, user) {
			return nil
		}
		o.Members = append(o.Members, user)
		return tx.Put(prefixAccount+org, o)
	})
}

// Get returns an account by login.
func (a *Accounts) Get(ctx context.Context, login string) (*Account, error) {
	var acct *Account
	err := a.store.View(ctx, func(tx Tx) error {
		var err error
		acct, err = getAccount(tx, strings.ToLower(login), "")
		return err
	})
	return acct, err
}

// List returns every account in login order.
func (a *Accounts) List(ctx context.Context) ([]*Account, error) {
	var out []*Account
	err := a.store.View(ctx, func(tx Tx) error {
		return scanJSON(tx, prefixAccount, func(acct *Account) error { out = append(out, acct); return nil })
	})
	return out, err
}

// Empty reports whether no account exists yet (a fresh data dir).
func (a *Accounts) Empty(ctx context.Context) (bool, error) {
	empty := true
	err := a.store.View(ctx, func(tx Tx) error {
		return tx.Scan(prefixAccount, "", func(string, []byte) error { empty = false; return ErrStopScan })
	})
	return empty, err
}

// getAccount loads an account; kind, when non-empty, must match.
func getAccount(tx Tx, login, kind string) (*Account, error) {
	var acct Account
	if err := tx.Get(prefixAccount+login, &acct); err != nil {
		if errors.Is(err, ErrNotFound) {
			what := "account"
			if kind == AccountOrg {
				what = "organization"
			} else if kind == AccountUser {
				what = "user"
			}
			return nil, NotFound(what, login)
		}
		return nil, err
	}
	if kind != "" && acct.Kind != kind {
		return nil, Errorf(CodeBadRequest, "%q is a %s, not a %s", login, acct.Kind, kind)
	}
	return &acct, nil
}
