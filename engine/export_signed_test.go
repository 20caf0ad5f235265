package engine

import (
	"context"
	"time"
)

// SignedThreadIDForTest draws the signed id a store:false run of owner's
// pipe pipeID gets at now, loading (or creating) the key as a run does.
func SignedThreadIDForTest(ctx context.Context, ts *Threads, owner, pipeID string, now time.Time) (string, error) {
	key, err := ts.idKey(ctx)
	if err != nil {
		return "", err
	}
	part, _ := signedPipePart(pipeID)
	return newSignedThreadID(key, owner, part, now), nil
}
