package postgres

import (
	"testing"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/blob/postgres/pgtest"
	"github.com/hearth-dev/hearth/blob/storetest"
	"github.com/hearth-dev/hearth/engine"
)

// BenchmarkStore compares the embedded store (Badger on disk) with
// PostgreSQL on loopback (the throwaway server of pgtest, fsync off) on the
// same operations.
func BenchmarkStore(b *testing.B) {
	b.Run("badger", func(b *testing.B) {
		storetest.Bench(b, func(b *testing.B) engine.Store {
			s := blob.New(blob.Options{Dir: b.TempDir()})
			if err := s.Open(); err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			return s
		})
	})
	b.Run("postgres", func(b *testing.B) {
		storetest.Bench(b, func(b *testing.B) engine.Store { return openURL(b, pgtest.URL(b), Options{}) })
	})
}
