package engine

import (
	"time"
	"unsafe"
)

// threadIDBuf holds the bytes of one signed thread id
// (newSignedThreadIDIn): a run keeps one with its own memory, used for one
// id only.
type threadIDBuf [SignedThreadIDLen]byte

// newSignedThreadIDIn is newSignedThreadID with the id's bytes in buf, so
// the id costs no allocation of its own. The string shares buf's bytes:
// buf is never written again while the id is in use (a run's buffer is
// used once, like its RunIDBuf).
func newSignedThreadIDIn(buf *threadIDBuf, key *threadIDKey, owner, pipePart string, now time.Time) string {
	fillSignedThreadID(buf, key, owner, pipePart, now)
	return unsafe.String(&buf[0], len(buf))
}
