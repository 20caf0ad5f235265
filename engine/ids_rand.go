package engine

import (
	"crypto/rand"
	mrand "math/rand/v2"
	"sync"
)

// Random ids (request, trace, thread, message, completion and run ids) are
// drawn from ChaCha8 generators seeded from crypto/rand, pooled so that
// each goroutine drawing one has a generator of its own for the draw: a
// read costs a few tens of nanoseconds where crypto/rand.Read costs over a
// hundred, and every request draws several.
//
// Why they stay unpredictable: ChaCha8 is a cryptographically strong
// generator (https://pkg.go.dev/math/rand/v2#ChaCha8); its output tells
// nothing of its key, and it replaces its key with its own output every
// 992 bytes (https://c2sp.org/chacha8rand), so a generator's state read
// from memory does not give the ids it drew before. Each generator takes a
// fresh 32-byte seed from crypto/rand when made and again after
// reseedAfter bytes, so one state gives a bounded number of ids. API key
// secrets (RandomString) and signing keys are not ids: they keep reading
// crypto/rand directly.
//
// The generators live in this process's memory and are seeded
// independently: several Hearth nodes sharing one database draw
// independent ids, as they did from crypto/rand, and nothing needs to be
// shared between them.

// reseedAfter is how many bytes a generator gives before a new seed.
const reseedAfter = 64 << 10

// idRand is one pooled generator and the bytes it may still give.
type idRand struct {
	gen  mrand.ChaCha8
	left int
}

// seedRead reads a generator's seed; tests replace it.
var seedRead = rand.Read

// idRands holds the generators; sync.Pool keeps them per P.
var idRands = newIDRandPool()

func newIDRandPool() *sync.Pool {
	return &sync.Pool{New: func() any { return new(idRand) }}
}

// readIDRandom fills b with random bytes for an id, from a pooled
// generator.
func readIDRandom(b []byte) {
	g := idRands.Get().(*idRand)
	g.read(b)
	idRands.Put(g)
}

// read fills b, seeding g first when it is new or has given reseedAfter
// bytes since its seed.
func (g *idRand) read(b []byte) {
	if g.left < len(b) {
		var seed [32]byte
		if _, err := seedRead(seed[:]); err != nil {
			panic(err) // crypto/rand never fails on supported platforms
		}
		g.gen.Seed(seed)
		clear(seed[:])
		g.left = reseedAfter
	}
	g.gen.Read(b)
	g.left -= len(b)
}
