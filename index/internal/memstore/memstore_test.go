package memstore

import (
	"testing"

	"github.com/hearth-dev/hearth/blob/storetest"
	"github.com/hearth-dev/hearth/engine"
)

// TestConformance holds the fake to the suite Badger and PostgreSQL pass, so
// index tests on it see the real stores' semantics.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) engine.Store { return New() })
}
