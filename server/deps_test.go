package server_test

import (
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestNewRequiresEveryDep: server.New builds no service in place of a
// missing one; it names what is missing.
func TestNewRequiresEveryDep(t *testing.T) {
	ts := servertest.Start(t)
	if _, err := server.New(server.Config{}, ts.App.Deps); err != nil {
		t.Fatalf("complete deps: %v", err)
	}
	d := ts.App.Deps
	d.Runner, d.Traces, d.Agent = nil, nil, nil
	_, err := server.New(server.Config{}, d)
	if err == nil || !strings.Contains(err.Error(), "missing deps Agent, Runner, Traces") {
		t.Fatalf("incomplete deps: %v", err)
	}
	if _, err := server.New(server.Config{}, server.Deps{Store: ts.Store, Accounts: ts.Accounts, Keysets: ts.Keysets}); err == nil {
		t.Fatal("New accepted deps without services")
	}
}
