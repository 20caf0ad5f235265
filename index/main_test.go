package index

import (
	"testing"

	"github.com/hearth-dev/hearth/blob/postgres/pgtest"
)

// TestMain stops the throwaway PostgreSQL of the cluster tests, if they
// started one.
func TestMain(m *testing.M) { pgtest.Main(m) }
