package engine

import "context"

// TopicBudget carries the owner whose budgets were set or deleted
// (Cluster.Publish/Subscribe).
const TopicBudget = "budget"

// Budget lists served from memory: Check keeps each owner's list of
// budgets (not their spend, which every run changes and which is always
// read from the store), so a run of an owner without budgets, or without
// one that applies to its key, reads nothing. Set and Delete drop the
// owner's entry after they commit, so a new budget refuses the very next
// request on this node, and publish TopicBudget with the owner in their
// transaction. In cluster mode each node drops an owner's list when the
// change feed delivers its change, so a budget set on one node applies on
// the others within the feed's lag (see gateCache); the spend is a shared
// record that every node reads and writes in the store, never cached.

// UseCluster turns the budget-list cache on (following c's change feed
// when c is shared), and makes
// budget writes publish to c's change feed. Call it once, before serving.
func (b *Budgets) UseCluster(c Cluster) {
	b.cluster = c
	if c == nil {
		return
	}
	b.lists = newGateCache[[]Budget](c)
	c.Subscribe(TopicBudget, func(owner string) { b.lists.drop(owner) })
}

// publishOwner records in tx that owner's budgets changed.
func (b *Budgets) publishOwner(tx Tx, owner string) error {
	if b.cluster == nil {
		return nil
	}
	return b.cluster.Publish(tx, TopicBudget, owner)
}

// applies reports whether any of budgets counts for a run through keyID.
func applies(budgets []Budget, keyID string) bool {
	for _, bg := range budgets {
		if bg.KeyID == "" || bg.KeyID == keyID {
			return true
		}
	}
	return false
}

// budgetsOf returns owner's budgets read in tx, or the cached list; a list
// read from the store is cached unless a write dropped the owner since
// gen was taken (before the read).
func (b *Budgets) budgetsOf(tx Tx, owner string, cached []Budget, ok bool, gen uint64) ([]Budget, error) {
	if ok {
		return cached, nil
	}
	budgets, err := listBudgets(tx, owner)
	if err == nil {
		b.lists.put(gen, owner, budgets, owner)
	}
	return budgets, err
}

// cachedNone reports whether the cache knows that no budget of owner
// applies to keyID, so Check need not open a transaction; it also returns
// what budgetsOf needs.
func (b *Budgets) cachedNone(_ context.Context, owner, keyID string) (none bool, cached []Budget, ok bool, gen uint64) {
	cached, ok, gen = b.lists.get(owner)
	return ok && !applies(cached, keyID), cached, ok, gen
}
