package engine

import (
	"context"
	"encoding/json"
	"sync"
	"time"
)

// TopicModels is the change-feed topic of the model entries `hearth
// apply` stores (key: keyAppliedModels).
const TopicModels = "models"

// keyAppliedModels holds the applied model entries (AppliedModelsRecord).
const keyAppliedModels = prefixMeta + "models"

// AppliedModelsRecord is the stored list of model entries declared in
// `hearth apply` files: prices, retirements and rules in the shape of
// HEARTH_MODELS_FILE's entries, which the providers layer validates.
type AppliedModelsRecord struct {
	Entries []json.RawMessage `json:"entries"`
	Updated time.Time         `json:"updated"`
}

// AppliedModels keeps the applied model entries in the store and tells
// this node's watchers when they change: at once after a Set here, and
// within the change feed's lag after a Set on another node of a cluster.
type AppliedModels struct {
	store   Store
	cluster Cluster
	mu      sync.Mutex
	watch   []func(entries []json.RawMessage)
}

// NewAppliedModels returns the applied model entries of store; changes
// published on cluster by other nodes reach the watchers.
func NewAppliedModels(store Store, cluster Cluster) *AppliedModels {
	s := &AppliedModels{store: store, cluster: cluster}
	cluster.Subscribe(TopicModels, func(string) {
		entries, err := s.Get(context.Background())
		if err == nil {
			s.notify(entries)
		}
	})
	return s
}

// Get returns the stored entries (nil when none were applied).
func (s *AppliedModels) Get(ctx context.Context) ([]json.RawMessage, error) {
	var rec AppliedModelsRecord
	err := s.store.View(ctx, func(tx Tx) error { return tx.Get(keyAppliedModels, &rec) })
	if IsNotFound(err) {
		return nil, nil
	}
	return rec.Entries, err
}

// Set stores entries (nil or empty: none) and tells the watchers.
func (s *AppliedModels) Set(ctx context.Context, entries []json.RawMessage) error {
	err := s.store.Update(ctx, func(tx Tx) error {
		if len(entries) == 0 {
			if err := tx.Delete(keyAppliedModels); err != nil && !IsNotFound(err) {
				return err
			}
		} else if err := tx.Put(keyAppliedModels, AppliedModelsRecord{Entries: entries, Updated: time.Now().UTC()}); err != nil {
			return err
		}
		return s.cluster.Publish(tx, TopicModels, keyAppliedModels)
	})
	if err != nil {
		return err
	}
	s.notify(entries)
	return nil
}

// Watch calls fn with the entries after every change.
func (s *AppliedModels) Watch(fn func(entries []json.RawMessage)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watch = append(s.watch, fn)
}

func (s *AppliedModels) notify(entries []json.RawMessage) {
	s.mu.Lock()
	fns := append([]func([]json.RawMessage){}, s.watch...)
	s.mu.Unlock()
	for _, fn := range fns {
		fn(entries)
	}
}
