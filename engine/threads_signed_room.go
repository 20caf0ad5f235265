package engine

import (
	"time"
	"unsafe"
)

// threadIDRoom is room for a signed thread id's bytes
// (newSignedThreadIDIn): a run keeps one with its own memory, used for one
// id only.
type threadIDRoom [SignedThreadIDLen]byte

// newSignedThreadIDIn is newSignedThreadID with the id's bytes in room, so
// the id costs no allocation of its own. The string shares room's bytes:
// room is never written again while the id is in use (a run's room is
// used once, like its RunIDRoom).
func newSignedThreadIDIn(room *threadIDRoom, key *threadIDKey, owner, pipePart string, now time.Time) string {
	fillSignedThreadID(room, key, owner, pipePart, now)
	return unsafe.String(&room[0], len(room))
}
