package engine

import (
	"context"
	"time"
	"unsafe"
)

// RunIDBuf holds the bytes of one run id (NewRunIDIn): a run keeps one
// with its own memory, used for one id only.
type RunIDBuf [32]byte

// NewRunIDIn is NewRunID with the id's bytes in buf, so the id costs no
// allocation of its own. The string shares buf's bytes: buf is never
// written again while the id is in use (a run's buffer is used once).
func NewRunIDIn(ctx context.Context, start time.Time, buf *RunIDBuf) string {
	b := appendRunID(ctx, buf[:0], start)
	return unsafe.String(&b[0], len(b))
}
