package engine

import (
	"context"
	"errors"
	"fmt"
)

// Set creates or replaces the budget of a subject (the owner, or in.KeyID)
// and period, acting as by. Only an unscoped user or org key of the owner
// may set budgets, and a key may lower its own budget but never raise or
// remove a limit of it (docs/accounts-and-keys.md#budgets).
func (b *Budgets) Set(ctx context.Context, by *Principal, in BudgetInput) (*BudgetStatus, error) {
	if err := checkBudgetSetter(by); err != nil {
		return nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	owner := by.Owner
	id := budgetID(in.KeyID, in.Period)
	now := NowFrom(ctx, b.now).UTC()
	var st BudgetStatus
	err := b.store.Update(ctx, func(tx Tx) error {
		if in.KeyID != "" {
			if err := checkBudgetKey(tx, owner, in.KeyID); err != nil {
				return err
			}
		}
		bg := Budget{ID: id, Owner: owner, KeyID: in.KeyID, Period: in.Period, CreatedAt: now}
		var old Budget
		err := tx.Get(prefixBudget+owner+"/"+id, &old)
		switch {
		case err == nil:
			if in.KeyID == by.KeyID && raises(old, in) {
				return &Error{Code: CodeForbidden, Field: "key_id",
					Message: "a key cannot raise its own budget: use another unscoped key of the owner"}
			}
			bg.CreatedAt = old.CreatedAt
		case !IsNotFound(err):
			return err
		}
		bg.LimitUSD, bg.LimitTokens, bg.UpdatedAt, bg.SetBy = in.LimitUSD, in.LimitTokens, now, by.KeyID
		if err := tx.Put(prefixBudget+owner+"/"+id, bg); err != nil {
			return err
		}
		if err := b.publishOwner(tx, owner); err != nil {
			return err
		}
		st, err = statusOf(tx, bg, b.now())
		return err
	})
	b.lists.drop(owner)
	if err != nil {
		return nil, err
	}
	return &st, nil
}

// Delete removes one of the owner's budgets, acting as by. A key cannot
// delete its own budget (that would raise it).
func (b *Budgets) Delete(ctx context.Context, by *Principal, id string) error {
	if err := checkBudgetSetter(by); err != nil {
		return err
	}
	defer b.lists.drop(by.Owner)
	return b.store.Update(ctx, func(tx Tx) error {
		key := prefixBudget + by.Owner + "/" + id
		var old Budget
		if err := tx.Get(key, &old); err != nil {
			if IsNotFound(err) {
				return NotFound("budget", id)
			}
			return err
		}
		if old.KeyID != "" && old.KeyID == by.KeyID {
			return &Error{Code: CodeForbidden, Field: "key_id",
				Message: "a key cannot delete its own budget: use another unscoped key of the owner"}
		}
		if err := b.publishOwner(tx, by.Owner); err != nil {
			return err
		}
		return tx.Delete(key)
	})
}

// checkBudgetSetter refuses pipe keys and scoped keys.
func checkBudgetSetter(by *Principal) error {
	if by == nil || !by.IsOwnerKey() {
		return &Error{Code: CodeForbidden, Field: "scope",
			Message: "a pipe key cannot set or delete budgets (it can only run its pipe): use an unscoped user or org key of the owner"}
	}
	if !by.Scope.Empty() {
		return &Error{Code: CodeForbidden, Field: "scope",
			Message: "a scoped API key cannot set or delete budgets: use an unscoped key of the owner"}
	}
	return nil
}

// checkBudgetKey refuses a key id that is not a live key of the owner.
func checkBudgetKey(tx Tx, owner, keyID string) error {
	var k APIKey
	err := tx.Get(prefixAPIKey+keyID, &k)
	if errors.Is(err, ErrNotFound) || IsNotFound(err) || (err == nil && k.Owner != owner) {
		return FieldError("key_id", "no key %q belongs to %s", keyID, owner)
	}
	if err != nil {
		return err
	}
	if k.RevokedAt != nil {
		return FieldError("key_id", "the key %q is revoked", keyID)
	}
	return nil
}

// raises reports whether in lifts a limit of old: a limit removed or made
// larger.
func raises(old Budget, in BudgetInput) bool {
	if old.LimitUSD != nil && (in.LimitUSD == nil || *in.LimitUSD > *old.LimitUSD) {
		return true
	}
	return old.LimitTokens != nil && (in.LimitTokens == nil || *in.LimitTokens > *old.LimitTokens)
}

// describe names a budget for messages: `the monthly budget of key
// "key_x"` or `the daily budget of "acme"`.
func (bg Budget) describe() string {
	per := "monthly"
	if bg.Period == PeriodDay {
		per = "daily"
	}
	if bg.KeyID != "" {
		return fmt.Sprintf("the %s budget of API key %s", per, bg.KeyID)
	}
	return fmt.Sprintf("the %s budget of %s", per, quote(bg.Owner))
}
