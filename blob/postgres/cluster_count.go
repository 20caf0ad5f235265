package postgres

import (
	"context"
	"fmt"
	"time"
)

// Count adds n to the counter key for the current window and returns the
// window's total over every node, in one statement: an upsert into
// hearth_counters keyed by (key, window start). The window is taken from
// the database's clock, so nodes whose clocks disagree still count into the
// same window. A row lives until its window has ended plus one window, then
// the maintenance loop deletes it.
func (c *Cluster) Count(ctx context.Context, key string, window time.Duration, n int64) (int64, error) {
	ms := window.Milliseconds()
	if ms <= 0 {
		return 0, fmt.Errorf("cluster counter %q: window %s is shorter than a millisecond", key, window)
	}
	var total int64
	err := c.s.pool.QueryRow(ctx, `
		WITH w AS (SELECT (floor(extract(epoch FROM clock_timestamp()) * 1000 / $2) * $2)::bigint AS start)
		INSERT INTO hearth_counters (key, window_start, n, expires_at)
		SELECT $1, w.start, $3, to_timestamp((w.start + 2 * $2) / 1000.0) FROM w
		ON CONFLICT (key, window_start) DO UPDATE SET n = hearth_counters.n + EXCLUDED.n
		RETURNING n`, key, ms, n).Scan(&total)
	if err != nil {
		return 0, mapErr(err)
	}
	return total, nil
}
