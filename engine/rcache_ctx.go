package engine

import (
	"context"
	"strings"
	"sync"
)

// Cache modes a request, a key or a pipe asks for (LB-Cache header, the
// cache field of a request body, a pipe's cache setting).
const (
	// CacheOn answers from the response cache when it holds the answer and
	// stores a new answer otherwise.
	CacheOn = "on"
	// CacheOff neither reads nor writes the cache.
	CacheOff = "off"
	// CacheRefresh calls the model even on a hit and replaces the entry.
	CacheRefresh = "refresh"
)

// Cache outcomes, reported in the lb-cache response header and the run
// log's cache field.
const (
	// CacheHit: the answer came from the cache; no model was called.
	CacheHit = "hit"
	// CacheMiss: the model answered; the answer was stored when it could be.
	CacheMiss = "miss"
	// CacheRefreshed: the model answered a refresh and the entry was replaced.
	CacheRefreshed = "refresh"
	// CacheBypass: the cache was asked for but the call cannot be cached
	// (temperature above 0, or tool results in the messages).
	CacheBypass = "bypass"
)

// How a hit matched its request, reported in the lb-cache-match header.
const (
	// CacheMatchExact: the request's exact key was stored.
	CacheMatchExact = "exact"
	// CacheMatchSemantic: a stored request differing only in its last user
	// message, embedded close enough to this one's, was served.
	CacheMatchSemantic = "semantic"
)

// cacheMatch is how a hit matched and the cosine similarity (1 for exact).
type cacheMatch struct {
	kind       string
	similarity float64
}

// ParseCacheMode checks a cache mode ("on", "off", "refresh", matched
// case-insensitively); "" is returned as "". field names the header or
// body field for the error.
func ParseCacheMode(field, v string) (string, error) {
	switch m := strings.ToLower(strings.TrimSpace(v)); m {
	case "", CacheOn, CacheOff, CacheRefresh:
		return m, nil
	}
	return "", FieldError(field, "must be one of on, off, refresh, got %q", v)
}

// CacheTicket is one request's use of the response cache: the mode it
// asked for, the owner whose entries it may read and write, and the
// outcome of its latest model call. It lives for one request.
type CacheTicket struct {
	// Owner scopes entries: one owner never reads another's answers.
	Owner string

	mu      sync.Mutex
	mode    string
	outcome string
	match   cacheMatch
}

type cacheTicketKey struct{}

// WithCacheTicket returns ctx carrying a ticket for owner with mode
// (ParseCacheMode's values; "" leaves the cache unused until SetMode).
func WithCacheTicket(ctx context.Context, owner, mode string) (context.Context, *CacheTicket) {
	t := &CacheTicket{Owner: owner, mode: mode}
	return context.WithValue(ctx, cacheTicketKey{}, t), t
}

// CacheTicketFrom returns the ticket ctx carries, or nil.
func CacheTicketFrom(ctx context.Context) *CacheTicket {
	t, _ := ctx.Value(cacheTicketKey{}).(*CacheTicket)
	return t
}

// SetMode sets the mode; "" leaves it unchanged.
func (t *CacheTicket) SetMode(mode string) {
	if t == nil || mode == "" {
		return
	}
	t.mu.Lock()
	t.mode = mode
	t.mu.Unlock()
}

// Default sets mode when no mode was chosen yet (a pipe's or a key's
// setting under a request that said nothing).
func (t *CacheTicket) Default(mode string) {
	if t == nil || mode == "" {
		return
	}
	t.mu.Lock()
	if t.mode == "" {
		t.mode = mode
	}
	t.mu.Unlock()
}

// Mode is the mode in force ("" when nothing asked for the cache).
func (t *CacheTicket) Mode() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.mode
}

// Outcome is the outcome of the latest model call made under the ticket
// ("" when none consulted the cache).
func (t *CacheTicket) Outcome() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.outcome
}

func (t *CacheTicket) setOutcome(o string) {
	t.mu.Lock()
	t.outcome, t.match = o, cacheMatch{}
	t.mu.Unlock()
}

func (t *CacheTicket) setHit(m cacheMatch) {
	t.mu.Lock()
	t.outcome, t.match = CacheHit, m
	t.mu.Unlock()
}

// Match is how the latest hit matched (CacheMatchExact or
// CacheMatchSemantic, "" when the latest call was no hit) and its cosine
// similarity (1 for an exact match).
func (t *CacheTicket) Match() (string, float64) {
	if t == nil {
		return "", 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.match.kind, t.match.similarity
}

// CacheOutcomeOf is the outcome of the cache ticket ctx carries ("" without one).
func CacheOutcomeOf(ctx context.Context) string {
	return CacheTicketFrom(ctx).Outcome()
}
