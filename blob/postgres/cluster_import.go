package postgres

import "context"

// Empty reports whether the database holds no record and no blob: what
// `hearth migrate` requires before it copies an embedded data dir in.
func (s *Store) Empty(ctx context.Context) (bool, error) {
	var used bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM hearth_kv) OR EXISTS (SELECT 1 FROM hearth_blobs)`).Scan(&used)
	if err != nil {
		return false, mapErr(err)
	}
	return !used, nil
}
