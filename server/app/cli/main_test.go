package cli

import (
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

// TestMain lets this test binary be the PDF parser child that Build wires
// (the server runs its own executable with the hidden subcommand).
func TestMain(m *testing.M) { servertest.Main(m) }
