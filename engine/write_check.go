package engine

import "context"

type writeCheckKey struct{}

// WithWriteCheck returns a context that carries check. Code that writes on
// behalf of a piece of background work (the memory engine's ingestion
// jobs, and the search index when it stores vectors for them) calls
// CheckWrite with that context at the start of each Update, so check runs
// in the same transaction as the write: a job whose lease another node has
// taken over cannot commit anything more (fencing). check must read only:
// an Update may run it several times.
func WithWriteCheck(ctx context.Context, check func(tx Tx) error) context.Context {
	return context.WithValue(ctx, writeCheckKey{}, check)
}

// CheckWrite runs the check ctx carries (see WithWriteCheck) in tx; it
// returns nil when ctx carries none.
func CheckWrite(ctx context.Context, tx Tx) error {
	if check, ok := ctx.Value(writeCheckKey{}).(func(tx Tx) error); ok {
		return check(tx)
	}
	return nil
}
