package engine

import (
	"context"
	"crypto/cipher"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// TopicDeployment is the change-feed topic of stored deployments (key: the
// deployment's name).
const TopicDeployment = "deployment"

// prefixDeployment holds the stored deployments: deployment/<name>.
const prefixDeployment = "deployment/"

// StoredDeployment is a deployment declared through the API or `hearth
// apply`: one server of a model, with its own base URL, key and limits.
// Its key is encrypted at rest like a keyset's and never returned: only
// its last four characters are.
type StoredDeployment struct {
	// Name identifies the deployment among the stored ones.
	Name string `json:"name"`
	// Model is the model id it serves ("local:llama-70b").
	Model   string `json:"model"`
	BaseURL string `json:"base_url"`
	// UpstreamModel is the model name sent to the server ("": Model's).
	UpstreamModel string `json:"upstream_model,omitempty"`
	// Strategy routes the calls of Model over its deployments; the
	// deployments of one model that set it agree.
	Strategy       string `json:"strategy,omitempty"`
	Weight         int    `json:"weight"`
	MaxConcurrency int    `json:"max_concurrency"`
	TPM            int64  `json:"tpm"`
	// APIKey is the key in clear: set on input and by Records, never
	// stored or encoded.
	APIKey string `json:"-"`
	// APIKeyLast4 shows the stored key's last four characters ("": none).
	APIKeyLast4 string    `json:"api_key_last4,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// DeploymentPatch changes some fields of a stored deployment; nil fields
// keep their value. An empty APIKey removes the key.
type DeploymentPatch struct {
	Model          *string `json:"model,omitempty"`
	BaseURL        *string `json:"base_url,omitempty"`
	APIKey         *string `json:"api_key,omitempty"`
	UpstreamModel  *string `json:"upstream_model,omitempty"`
	Strategy       *string `json:"strategy,omitempty"`
	Weight         *int    `json:"weight,omitempty"`
	MaxConcurrency *int    `json:"max_concurrency,omitempty"`
	TPM            *int64  `json:"tpm,omitempty"`
}

// deploymentRecord is a stored deployment with its sealed key.
type deploymentRecord struct {
	StoredDeployment
	Nonce      []byte `json:"nonce,omitempty"`
	Ciphertext []byte `json:"ciphertext,omitempty"`
}

// DeploymentCheck vets a deployment about to be stored against what the
// store cannot know (the configuration's models); nil accepts it.
type DeploymentCheck func(d *StoredDeployment) error

// StoredDeployments keeps the deployments declared through the API or
// `hearth apply` and tells this node's watchers when they change: at once
// after a change here, within the change feed's lag after a change on
// another node of a cluster (each node then rebuilds its own routers;
// health and latency stay per node).
type StoredDeployments struct {
	store   Store
	cluster Cluster
	aead    cipher.AEAD
	now     func() time.Time
	mu      sync.Mutex
	check   DeploymentCheck
	watch   []func()
}

// NewStoredDeployments returns the stored deployments of store; secret is
// the 32-byte key that seals their keys (the keysets' secret). Every
// change another node publishes, and every feed reconnect (key ""), tells
// the watchers, which reload the whole list.
func NewStoredDeployments(store Store, cluster Cluster, secret []byte) (*StoredDeployments, error) {
	aead, err := newSecretAEAD("deployments", secret)
	if err != nil {
		return nil, err
	}
	if cluster == nil {
		cluster = &Local{}
	}
	s := &StoredDeployments{store: store, cluster: cluster, aead: aead, now: time.Now}
	cluster.Subscribe(TopicDeployment, func(string) { s.notify() })
	return s, nil
}

// SetCheck installs the check run before every create and update.
func (s *StoredDeployments) SetCheck(fn DeploymentCheck) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.check = fn
}

// Watch calls fn after every change of the stored deployments.
func (s *StoredDeployments) Watch(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watch = append(s.watch, fn)
}

func (s *StoredDeployments) notify() {
	s.mu.Lock()
	fns := append([]func(){}, s.watch...)
	s.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

func deploymentKey(name string) string { return prefixDeployment + name }

// List returns the stored deployments by name, keys masked.
func (s *StoredDeployments) List(ctx context.Context) ([]StoredDeployment, error) {
	out := []StoredDeployment{}
	err := s.store.View(ctx, func(tx Tx) error {
		return scanJSON(tx, prefixDeployment, func(r *deploymentRecord) error {
			out = append(out, r.StoredDeployment)
			return nil
		})
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, err
}

// Records returns the stored deployments by name with their keys in
// clear, for the provider registry.
func (s *StoredDeployments) Records(ctx context.Context) ([]StoredDeployment, error) {
	var out []StoredDeployment
	err := s.store.View(ctx, func(tx Tx) error {
		return scanJSON(tx, prefixDeployment, func(r *deploymentRecord) error {
			d := r.StoredDeployment
			if len(r.Ciphertext) > 0 {
				plain, err := s.aead.Open(nil, r.Nonce, r.Ciphertext, []byte(deploymentKey(d.Name)))
				if err != nil {
					return fmt.Errorf("deployment %q: its key cannot be decrypted (was the secret key changed?): %w", d.Name, err)
				}
				d.APIKey = string(plain)
			}
			out = append(out, d)
			return nil
		})
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, err
}

// Get returns one stored deployment, key masked.
func (s *StoredDeployments) Get(ctx context.Context, name string) (*StoredDeployment, error) {
	var rec deploymentRecord
	err := s.store.View(ctx, func(tx Tx) error { return tx.Get(deploymentKey(name), &rec) })
	if IsNotFound(err) {
		return nil, NotFound("deployment", name)
	}
	if err != nil {
		return nil, err
	}
	return &rec.StoredDeployment, nil
}

// HoldsKey reports whether the stored deployment name has exactly key
// ("" : no key), so `hearth apply` can tell an unchanged key.
func (s *StoredDeployments) HoldsKey(ctx context.Context, name, key string) (bool, error) {
	all, err := s.Records(ctx)
	if err != nil {
		return false, err
	}
	for _, d := range all {
		if d.Name == name {
			return d.APIKey == strings.TrimSpace(key), nil
		}
	}
	return false, NotFound("deployment", name)
}

// Create stores a new deployment; a name already stored is a CONFLICT.
func (s *StoredDeployments) Create(ctx context.Context, d StoredDeployment) (*StoredDeployment, error) {
	return s.write(ctx, d.Name, func(cur *deploymentRecord) (*StoredDeployment, error) {
		if cur != nil {
			return nil, Errorf(CodeConflict, "deployment %q already exists (update it with PUT /v1/deployments/%s)", d.Name, d.Name)
		}
		d.APIKeyLast4 = ""
		return &d, nil
	})
}

// Update changes the fields patch sets on the stored deployment name.
func (s *StoredDeployments) Update(ctx context.Context, name string, patch DeploymentPatch) (*StoredDeployment, error) {
	return s.write(ctx, name, func(cur *deploymentRecord) (*StoredDeployment, error) {
		if cur == nil {
			return nil, NotFound("deployment", name)
		}
		d := cur.StoredDeployment
		d.APIKey = keepKey
		for dst, src := range map[*string]*string{&d.Model: patch.Model, &d.BaseURL: patch.BaseURL, &d.APIKey: patch.APIKey,
			&d.UpstreamModel: patch.UpstreamModel, &d.Strategy: patch.Strategy} {
			if src != nil {
				*dst = *src
			}
		}
		if patch.Weight != nil {
			d.Weight = *patch.Weight
		}
		if patch.MaxConcurrency != nil {
			d.MaxConcurrency = *patch.MaxConcurrency
		}
		if patch.TPM != nil {
			d.TPM = *patch.TPM
		}
		return &d, nil
	})
}

// keepKey marks an update that leaves the stored key as it is.
const keepKey = "\x00keep"

// Delete removes the stored deployment name.
func (s *StoredDeployments) Delete(ctx context.Context, name string) error {
	err := s.store.Update(ctx, func(tx Tx) error {
		if ok, err := tx.Exists(deploymentKey(name)); err != nil {
			return err
		} else if !ok {
			return NotFound("deployment", name)
		}
		if err := s.cluster.Publish(tx, TopicDeployment, name); err != nil {
			return err
		}
		return tx.Delete(deploymentKey(name))
	})
	if err == nil {
		s.notify()
	}
	return err
}

// write validates and stores the deployment change makes of the current
// record (nil: none), in one transaction that also checks the model's
// other deployments agree on the strategy, and publishes the change.
func (s *StoredDeployments) write(ctx context.Context, name string, change func(cur *deploymentRecord) (*StoredDeployment, error)) (*StoredDeployment, error) {
	s.mu.Lock()
	check := s.check
	s.mu.Unlock()
	var out *StoredDeployment
	err := s.store.Update(ctx, func(tx Tx) error {
		var cur *deploymentRecord
		var rec deploymentRecord
		if err := tx.Get(deploymentKey(name), &rec); err == nil {
			cur = &rec
		} else if !IsNotFound(err) {
			return err
		}
		d, err := change(cur)
		if err != nil {
			return err
		}
		if err := d.normalize(); err != nil {
			return err
		}
		if check != nil {
			if err := check(d); err != nil {
				return err
			}
		}
		if err := sameStrategy(tx, d); err != nil {
			return err
		}
		next := deploymentRecord{StoredDeployment: *d}
		next.APIKey = ""
		switch {
		case d.APIKey == keepKey && cur != nil:
			next.APIKeyLast4, next.Nonce, next.Ciphertext = cur.APIKeyLast4, cur.Nonce, cur.Ciphertext
		case d.APIKey != "" && d.APIKey != keepKey:
			if err := s.seal(&next, d.APIKey); err != nil {
				return err
			}
		default:
			next.APIKeyLast4 = ""
		}
		now := NowFrom(ctx, s.now).UTC()
		next.UpdatedAt = now
		if cur == nil {
			next.CreatedAt = now
		} else {
			next.CreatedAt = cur.CreatedAt
		}
		if err := s.cluster.Publish(tx, TopicDeployment, name); err != nil {
			return err
		}
		out = &next.StoredDeployment
		return tx.Put(deploymentKey(name), &next)
	})
	if err != nil {
		return nil, err
	}
	s.notify()
	return out, nil
}

// seal encrypts key into rec, bound to the record's store key.
func (s *StoredDeployments) seal(rec *deploymentRecord, key string) error {
	key = strings.TrimSpace(key)
	if err := CheckHeaderValue("api_key", key); err != nil {
		return err
	}
	if len(key) > 4096 {
		return FieldError("api_key", "must be at most 4096 characters")
	}
	last4, err := poolLast4(key)
	if err != nil {
		return FieldError("api_key", "%s", strings.TrimPrefix(err.Error(), "key: "))
	}
	nonce, ciphertext, err := sealSecret(s.aead, key, deploymentKey(rec.Name))
	if err != nil {
		return err
	}
	rec.Nonce, rec.Ciphertext, rec.APIKeyLast4 = nonce, ciphertext, last4
	return nil
}

// sameStrategy refuses a strategy other than the one another stored
// deployment of the same model sets.
func sameStrategy(tx Tx, d *StoredDeployment) error {
	if d.Strategy == "" {
		return nil
	}
	return scanJSON(tx, prefixDeployment, func(r *deploymentRecord) error {
		if r.Name != d.Name && r.Model == d.Model && r.Strategy != "" && r.Strategy != d.Strategy {
			return FieldError("strategy", "%q differs from %q, which deployment %q of %s sets; every deployment of a model routes by one strategy", d.Strategy, r.Strategy, r.Name, d.Model)
		}
		return nil
	})
}
