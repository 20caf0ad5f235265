package main

import (
	"context"

	"github.com/hearth-dev/hearth/server/servertest"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pooled is a store on PostgreSQL (cluster mode).
type pooled interface{ Pool() *pgxpool.Pool }

// dbStatements returns how many statements the node's database has run
// (pg_stat_statements: every query, BEGIN, COMMIT and ROLLBACK counts
// once), or -1 when the node is not on PostgreSQL or the server lacks the
// extension.
func dbStatements(ts *servertest.Server) int64 {
	p, ok := ts.App.Store.(pooled)
	if !ok {
		return -1
	}
	ctx := context.Background()
	if _, err := p.Pool().Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pg_stat_statements`); err != nil {
		return -1
	}
	var n int64
	if err := p.Pool().QueryRow(ctx, `SELECT coalesce(sum(calls), 0)::bigint FROM pg_stat_statements
		WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&n); err != nil {
		return -1
	}
	return n
}

// storeTrips returns the round trips the node's store transactions have
// made, or -1 when the node is not on PostgreSQL.
func storeTrips(ts *servertest.Server) int64 {
	p, ok := ts.App.Store.(interface{ RoundTrips() uint64 })
	if !ok {
		return -1
	}
	return int64(p.RoundTrips())
}
