package engine

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"sync"
	"time"
)

// IDSource makes the ids and timestamps a request hands out: thread,
// message, completion, pipe, key, request and trace ids and the created
// fields of records and completions. The default (no source in the
// context) is random ids and the real clock; a Deterministic scope makes
// them from a seeded sequence (docs/hearth-in-your-tests.md,
// "Deterministic mode").
type IDSource interface {
	// ID returns n base62 characters.
	ID(n int) string
	// Now returns the time to stamp created fields with.
	Now() time.Time
}

type idSourceKey struct{}

// WithIDs returns ctx carrying src: every id and created timestamp made
// under ctx comes from it.
func WithIDs(ctx context.Context, src IDSource) context.Context {
	return context.WithValue(ctx, idSourceKey{}, src)
}

// idsFrom returns the source ctx carries, or nil.
func idsFrom(ctx context.Context) IDSource {
	if ctx == nil {
		return nil
	}
	src, _ := ctx.Value(idSourceKey{}).(IDSource)
	return src
}

// NewID returns n base62 characters: from the context's IDSource when it
// carries one, random otherwise (ids_rand.go).
func NewID(ctx context.Context, n int) string {
	if src := idsFrom(ctx); src != nil {
		return src.ID(n)
	}
	return randomWithPrefix("", n, readIDRandom)
}

// NewPrefixedID returns prefix followed by n characters drawn like NewID
// (one allocation when random).
func NewPrefixedID(ctx context.Context, prefix string, n int) string {
	if src := idsFrom(ctx); src != nil {
		return prefix + src.ID(n)
	}
	return randomWithPrefix(prefix, n, readIDRandom)
}

// NewUUID returns a version 4 UUID string, drawn like NewID.
func NewUUID(ctx context.Context) string {
	var b [16]byte
	if src := idsFrom(ctx); src != nil {
		copy(b[:], src.ID(16))
	} else {
		readIDRandom(b[:])
	}
	// Hash the drawn characters so every nibble is used, then set the
	// version and variant bits.
	sum := sha256.Sum256(b[:])
	copy(b[:], sum[:16])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:36], b[10:16])
	return string(out[:])
}

// NowFrom returns the context's IDSource time when it carries one, else
// clock() (a service's own clock, which tests may replace).
func NowFrom(ctx context.Context, clock func() time.Time) time.Time {
	if src := idsFrom(ctx); src != nil {
		return src.Now()
	}
	if clock == nil {
		return time.Now()
	}
	return clock()
}

// deterministicEpoch is the time of the first request in deterministic
// mode; each later request is one second later.
var deterministicEpoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// Deterministic hands each request a scope whose ids and timestamps depend
// only on the seed, the request's position in the sequence of requests
// and the order of draws within it, so the same sequence of requests gives
// byte-identical answers. Work done outside a request (ingestion workers,
// sweeps) keeps random ids and the real clock.
//
// The sequence counter lives in this process's memory: with several nodes
// sharing one database each would count on its own and their ids could
// collide, which is why deterministic mode is refused in cluster mode
// (HEARTH_DATABASE_URL). It is meant for a single node under test.
type Deterministic struct {
	seed uint64
	mu   sync.Mutex
	seq  uint64
}

// NewDeterministic returns a Deterministic source seeded with seed.
func NewDeterministic(seed uint64) *Deterministic { return &Deterministic{seed: seed} }

// Scope returns the IDSource of the next request.
func (d *Deterministic) Scope() IDSource {
	d.mu.Lock()
	d.seq++
	seq := d.seq
	d.mu.Unlock()
	return &detScope{seed: d.seed, seq: seq}
}

// detScope is one request's share of a Deterministic sequence.
type detScope struct {
	seed, seq uint64
	mu        sync.Mutex
	draws     uint64
}

func (s *detScope) ID(n int) string {
	s.mu.Lock()
	s.draws++
	draw := s.draws
	s.mu.Unlock()
	out := make([]byte, 0, n)
	var buf [24]byte
	binary.BigEndian.PutUint64(buf[0:], s.seed)
	binary.BigEndian.PutUint64(buf[8:], s.seq)
	binary.BigEndian.PutUint64(buf[16:], draw)
	block := sha256.Sum256(buf[:])
	for len(out) < n {
		for _, c := range block {
			if len(out) == n {
				break
			}
			out = append(out, base62[int(c)%len(base62)])
		}
		block = sha256.Sum256(block[:])
	}
	return string(out)
}

func (s *detScope) Now() time.Time {
	return deterministicEpoch.Add(time.Duration(s.seq-1) * time.Second)
}

// CreatedFrom is the "created" field of a completion: now when ctx carries
// an IDSource (the upstream's clock would break the sequence), else the
// upstream's value, or now when the upstream sent none.
func CreatedFrom(ctx context.Context, upstream int64, now time.Time) int64 {
	if upstream == 0 || idsFrom(ctx) != nil {
		return now.Unix()
	}
	return upstream
}
