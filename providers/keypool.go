package providers

import (
	"context"
	"crypto/sha256"
	"errors"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// Key pools: a provider key may be a comma-separated list of keys (in a
// keyset, in LB-LLM-Key, or in HEARTH_<PROVIDER>_API_KEY). Calls spread
// over the keys in turn; a key answered 429 (rate limited) or 401/403
// (refused) cools down, honouring Retry-After, while the others serve,
// and the same call is tried at once on the next key. When every key is
// cooling down, the one whose cool-down ends first is tried anyway.
//
// The pool's state (the turn counter and the cool-downs) lives in this
// process's memory. With several Hearth nodes sharing one database each
// node keeps its own view: a key rate limited on node A is still tried by
// node B until B gets its own 429 for it, so a cooling key costs at most
// one failed call per node per cool-down period, and the spread is even
// per node rather than across the cluster. Nothing is stored, so the
// state can later move to a shared store without a migration.

const (
	// defaultRateCooldown applies to a 429 without a Retry-After.
	defaultRateCooldown = 30 * time.Second
	// authCooldown applies to a refused key (401/403): it is likely
	// revoked, but may be fixed upstream without a restart.
	authCooldown = 10 * time.Minute
	// maxCooldown bounds any Retry-After.
	maxCooldown = time.Hour
)

// keyPool holds the turn counters and cool-downs of every pool.
type keyPool struct {
	mu   sync.Mutex
	turn map[string]uint64      // provider -> calls started
	cool map[[32]byte]time.Time // sha256(provider, key) -> end of cool-down
	now  func() time.Time
}

func newKeyPool() *keyPool {
	return &keyPool{turn: map[string]uint64{}, cool: map[[32]byte]time.Time{}, now: time.Now}
}

// SplitKeys reads a key pool: comma-separated keys, trimmed, empty ones dropped.
func SplitKeys(s string) []string {
	var out []string
	for _, k := range strings.Split(s, ",") {
		if k = strings.TrimSpace(k); k != "" {
			out = append(out, k)
		}
	}
	return out
}

func poolID(provider, key string) [32]byte { return sha256.Sum256([]byte(provider + "\x00" + key)) }

// order returns the keys to try, in order: from this call's turn on, the
// keys not cooling down; when all are, the one whose cool-down ends first.
func (p *keyPool) order(provider string, keys []string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	start := int(p.turn[provider] % uint64(len(keys)))
	p.turn[provider]++
	now := p.now()
	var ready, cooling []string
	for i := range keys {
		k := keys[(start+i)%len(keys)]
		id := poolID(provider, k)
		if until, ok := p.cool[id]; ok {
			if now.Before(until) {
				cooling = append(cooling, k)
				continue
			}
			delete(p.cool, id)
		}
		ready = append(ready, k)
	}
	if len(ready) > 0 {
		return ready
	}
	sort.SliceStable(cooling, func(i, j int) bool {
		return p.cool[poolID(provider, cooling[i])].Before(p.cool[poolID(provider, cooling[j])])
	})
	return cooling[:1]
}

// report cools a key down when err is about the key (429, 401, 403) and
// says whether another key of the pool may succeed.
func (p *keyPool) report(provider, key string, err error) bool {
	var d time.Duration
	switch UpstreamStatus(err) {
	case http.StatusTooManyRequests:
		d = defaultRateCooldown
		var ee *engine.Error
		if errors.As(err, &ee) && ee.RetryAfter > 0 {
			d = time.Duration(ee.RetryAfter) * time.Second
		}
	case http.StatusUnauthorized, http.StatusForbidden:
		d = authCooldown
	default:
		return false
	}
	d = min(d, maxCooldown)
	p.mu.Lock()
	p.cool[poolID(provider, key)] = p.now().Add(d)
	p.mu.Unlock()
	return true
}

type poolCtxKey struct{}

// pooled reports whether the call is one attempt of a pool with other
// keys: a 429 then goes to the next key instead of being retried here.
func pooled(ctx context.Context) bool { return ctx.Value(poolCtxKey{}) != nil }

// poolCall runs call with each key of the pool in turn until one is not
// refused for a key reason. A single key is called as is.
func poolCall[T any](ctx context.Context, p *keyPool, provider, keys string, call func(ctx context.Context, key string) (T, error)) (T, error) {
	if !strings.Contains(keys, ",") {
		return call(ctx, strings.TrimSpace(keys))
	}
	list := SplitKeys(keys)
	if len(list) <= 1 {
		return call(ctx, strings.TrimSpace(keys))
	}
	ctx = context.WithValue(ctx, poolCtxKey{}, true)
	var zero T
	var last error
	for _, k := range p.order(provider, list) {
		v, err := call(ctx, k)
		if err == nil {
			return v, nil
		}
		if ctx.Err() != nil || !p.report(provider, k, err) {
			return zero, err
		}
		last = err
	}
	return zero, last
}

// poolRequest is poolCall for a call whose key travels in its request:
// each try gets its own copy of *req with the key keyOf points at set to
// the pool's key.
func poolRequest[R, T any](ctx context.Context, p *keyPool, provider string, req *R, keyOf func(*R) *string, call func(context.Context, *R) (T, error)) (T, error) {
	return poolCall(ctx, p, provider, *keyOf(req), func(ctx context.Context, key string) (T, error) {
		r := *req
		*keyOf(&r) = key
		return call(ctx, &r)
	})
}

// singleKey reports whether key is one key as it will be sent (no comma,
// nothing to trim): its pool copy of a request would equal the request, so
// a call that returns before the request is used again (non-stream chat,
// embeddings; the adapters never modify a request) is passed the request
// itself, without the copy and closure of poolRequest.
func singleKey(key string) bool {
	return !strings.Contains(key, ",") && strings.TrimSpace(key) == key
}

func chatKey(r *engine.ChatRequest) *string   { return &r.APIKey }
func embedKey(r *engine.EmbedRequest) *string { return &r.APIKey }

// pooledChat, pooledEmbedder and pooledModerator put a provider's
// adapter behind its key pool.
type pooledChat struct {
	inner    engine.ChatModel
	pool     *keyPool
	provider string
}

func (c pooledChat) Chat(ctx context.Context, req *engine.ChatRequest) (*engine.ChatResponse, error) {
	if singleKey(req.APIKey) {
		return c.inner.Chat(ctx, req)
	}
	return poolRequest(ctx, c.pool, c.provider, req, chatKey, c.inner.Chat)
}

func (c pooledChat) ChatStream(ctx context.Context, req *engine.ChatRequest) (engine.ChatStream, error) {
	return poolRequest(ctx, c.pool, c.provider, req, chatKey, c.inner.ChatStream)
}

type pooledEmbedder struct {
	inner    engine.Embedder
	pool     *keyPool
	provider string
}

func (e pooledEmbedder) Embed(ctx context.Context, req *engine.EmbedRequest) ([][]float32, error) {
	if singleKey(req.APIKey) {
		return e.inner.Embed(ctx, req)
	}
	return poolRequest(ctx, e.pool, e.provider, req, embedKey, e.inner.Embed)
}

func (e pooledEmbedder) MaxBatch() int { return e.inner.MaxBatch() }

type pooledModerator struct {
	inner    engine.Moderator
	pool     *keyPool
	provider string
}

func (m pooledModerator) Moderate(ctx context.Context, apiKey string, input []string) (*engine.ModerationResult, error) {
	return poolCall(ctx, m.pool, m.provider, apiKey, func(ctx context.Context, key string) (*engine.ModerationResult, error) {
		return m.inner.Moderate(ctx, key, input)
	})
}

var (
	_ engine.ChatModel = pooledChat{}
	_ engine.Embedder  = pooledEmbedder{}
	_ engine.Moderator = pooledModerator{}
)
