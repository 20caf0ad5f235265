package engine

import (
	"context"
	"unsafe"
)

// NewPrefixedIDPair returns two ids drawn like NewPrefixedID, prefix1
// followed by n1 characters and prefix2 followed by n2 (the request and
// trace ids every answer carries). Random ids share one allocation and
// one random read (ids_rand.go); with the context's IDSource they are drawn in
// order, as two NewPrefixedID calls draw them.
func NewPrefixedIDPair(ctx context.Context, prefix1 string, n1 int, prefix2 string, n2 int) (string, string) {
	return NewPrefixedIDPairIn(ctx, nil, prefix1, n1, prefix2, n2)
}

// NewPrefixedIDPairIn is NewPrefixedIDPair writing random ids into buf when
// it holds both (len(prefix1)+n1+len(prefix2)+n2 bytes), so a caller can
// allocate them together with what holds them. The ids share buf's
// memory: the caller must never write to buf again.
func NewPrefixedIDPairIn(ctx context.Context, buf []byte, prefix1 string, n1 int, prefix2 string, n2 int) (string, string) {
	if idsFrom(ctx) != nil {
		return NewPrefixedID(ctx, prefix1, n1), NewPrefixedID(ctx, prefix2, n2)
	}
	l1, size := len(prefix1)+n1, len(prefix1)+n1+len(prefix2)+n2
	if len(buf) < size {
		buf = make([]byte, size)
	}
	buf = buf[:size]
	copy(buf, prefix1)
	copy(buf[l1:], prefix2)
	fillBase62(buf[len(prefix1):l1], buf[l1+len(prefix2):])
	s := unsafe.String(unsafe.SliceData(buf), len(buf)) // buf is never written again
	return s[:l1], s[l1:]
}

// fillBase62 fills a and then b with uniformly drawn base62 characters
// (rejection sampling, as randomWithPrefix), from one random read
// (ids_rand.go) when the ids are short.
func fillBase62(a, b []byte) {
	const accept = 4 * len(base62)
	n := len(a) + len(b)
	var pool [64]byte
	for i := 0; i < n; {
		want := min(len(pool), n-i+n/16+2)
		readIDRandom(pool[:want])
		for _, c := range pool[:want] {
			if int(c) >= accept || i == n {
				continue
			}
			if i < len(a) {
				a[i] = base62[int(c)%len(base62)]
			} else {
				b[i-len(a)] = base62[int(c)%len(base62)]
			}
			i++
		}
	}
}
