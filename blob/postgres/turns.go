package postgres

import (
	"context"

	"github.com/hearth-dev/hearth/engine"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// turnTracer marks each statement, batch and wait for a pooled
// connection as a wait outside the process on the calling request's CPU
// turn (engine.Away), so that in cluster mode a request waiting on
// PostgreSQL lets others compute (docs/security.md#cpu-turns). Statements
// of contexts without a turn (the group commit's, the feeds') cost a
// context lookup.
type turnTracer struct{}

// awayTurn is the context key of the turn a traced call is away on.
type awayTurn struct{}

var (
	_ pgx.QueryTracer       = turnTracer{}
	_ pgx.BatchTracer       = turnTracer{}
	_ pgxpool.AcquireTracer = turnTracer{}
)

func (turnTracer) away(ctx context.Context) context.Context {
	if t := engine.Away(ctx); t != nil {
		return context.WithValue(ctx, awayTurn{}, t)
	}
	return ctx
}

func (turnTracer) back(ctx context.Context) {
	if t, ok := ctx.Value(awayTurn{}).(engine.Turn); ok {
		t.Return()
	}
}

func (tt turnTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return tt.away(ctx)
}

func (tt turnTracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryEndData) {
	tt.back(ctx)
}

func (tt turnTracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return tt.away(ctx)
}

func (turnTracer) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

func (tt turnTracer) TraceBatchEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchEndData) {
	tt.back(ctx)
}

func (tt turnTracer) TraceAcquireStart(ctx context.Context, _ *pgxpool.Pool, _ pgxpool.TraceAcquireStartData) context.Context {
	return tt.away(ctx)
}

func (tt turnTracer) TraceAcquireEnd(ctx context.Context, _ *pgxpool.Pool, _ pgxpool.TraceAcquireEndData) {
	tt.back(ctx)
}
