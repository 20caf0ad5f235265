package engine

import (
	"context"
	"time"
	"unsafe"
)

// RunIDRoom is room for a run id's bytes (NewRunIDIn): a run keeps one
// with its own memory, used for one id only.
type RunIDRoom [32]byte

// NewRunIDIn is NewRunID with the id's bytes in room, so the id costs no
// allocation of its own. The string shares room's bytes: room is never
// written again while the id is in use (a run's room is used once).
func NewRunIDIn(ctx context.Context, start time.Time, room *RunIDRoom) string {
	b := appendRunID(ctx, room[:0], start)
	return unsafe.String(&b[0], len(b))
}
