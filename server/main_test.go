package server_test

import (
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

// TestMain lets the test binary act as the PDF parser child of the test
// servers (see servertest.Main).
func TestMain(m *testing.M) { servertest.Main(m) }
