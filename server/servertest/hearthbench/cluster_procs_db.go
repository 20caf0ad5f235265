package main

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// procsFilter returns whether a route is measured: every route when list is
// empty, else those whose name starts with one of its comma-separated items.
func procsFilter(list string) func(string) bool {
	var prefixes []string
	for _, p := range strings.Split(list, ",") {
		if p = strings.TrimSpace(p); p != "" {
			prefixes = append(prefixes, p)
		}
	}
	return func(name string) bool {
		if len(prefixes) == 0 {
			return true
		}
		for _, p := range prefixes {
			if strings.HasPrefix(name, p) {
				return true
			}
		}
		return false
	}
}

// withPG runs fn on a connection of its own to url's database; it
// reports false when the database or pg_stat_statements is unavailable.
func withPG(url string, fn func(ctx context.Context, conn *pgx.Conn) error) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return false
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pg_stat_statements`); err != nil {
		return false
	}
	return fn(ctx, conn) == nil
}

// pgResetStatements clears pg_stat_statements' counts.
func pgResetStatements(url string) {
	withPG(url, func(ctx context.Context, conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, `SELECT pg_stat_statements_reset()`)
		return err
	})
}

// logTopStatements logs the n statements of url's database that took the
// most time since the last reset, per request of reqs: calls, rows and
// execution time.
func logTopStatements(url string, n, reqs int, route string, logf func(string, ...any)) {
	if reqs <= 0 {
		return
	}
	withPG(url, func(ctx context.Context, conn *pgx.Conn) error {
		rows, err := conn.Query(ctx, `SELECT calls, rows, total_exec_time, query FROM pg_stat_statements
			WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
			ORDER BY total_exec_time DESC LIMIT $1`, n)
		if err != nil {
			return err
		}
		defer rows.Close()
		r := float64(reqs)
		for rows.Next() {
			var calls, nrows int64
			var ms float64
			var q string
			if err := rows.Scan(&calls, &nrows, &ms, &q); err != nil {
				return err
			}
			q = strings.Join(strings.Fields(q), " ")
			if len(q) > 110 {
				q = q[:110] + "…"
			}
			logf("cluster-procs: %s: db per request: %.3f calls %.2f rows %.4f ms: %s", route, float64(calls)/r, float64(nrows)/r, ms/r, q)
		}
		return rows.Err()
	})
}

// pgTransactions is how many transactions url's database has committed or
// rolled back (pg_stat_database, which counts a statement sent outside a
// transaction as one), -1 when unknown. A busy backend reports its counts
// about once a second, so a reading lags by up to that much: over a cell
// of busy seconds the lags at both ends roughly cancel, and the figure
// per request is approximate.
func pgTransactions(url string) int64 {
	n := int64(-1)
	withPG(url, func(ctx context.Context, conn *pgx.Conn) error {
		if _, err := conn.Exec(ctx, `SELECT pg_stat_clear_snapshot()`); err != nil {
			return err
		}
		return conn.QueryRow(ctx, `SELECT (xact_commit + xact_rollback)::bigint FROM pg_stat_database
			WHERE datname = current_database()`).Scan(&n)
	})
	return n
}
