package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

// TestBudgetsCLI: hearth budgets set, list and delete against a running
// server; a refusal prints the server's message and exits 1.
func TestBudgetsCLI(t *testing.T) {
	ts := servertest.Start(t)
	env := envMap(map[string]string{"HEARTH_PUBLIC_URL": ts.URL, "HEARTH_API_KEY": servertest.AdminKey})
	cli := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := Run(args, env, &out, &errOut)
		return code, out.String(), errOut.String()
	}
	if code, out, errOut := cli("budgets", "set", "--period", "month", "--usd", "12.5", "--tokens", "1000"); code != 0 || !strings.Contains(out, "budget bgt_month_owner set") {
		t.Fatalf("set: %d %q %q", code, out, errOut)
	}
	code, out, errOut := cli("budgets", "list")
	if code != 0 || !strings.Contains(out, "bgt_month_owner") || !strings.Contains(out, "owner admin") ||
		!strings.Contains(out, "0 of 12.5") || !strings.Contains(out, "0 of 1000") {
		t.Fatalf("list: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := cli("budgets", "set", "--period", "week", "--usd", "1"); code != 1 || !strings.Contains(errOut, "period: must be") {
		t.Fatalf("bad period: %d %q", code, errOut)
	}
	if code, out, errOut := cli("budgets", "delete", "bgt_month_owner"); code != 0 || !strings.Contains(out, "deleted") {
		t.Fatalf("delete: %d %q %q", code, out, errOut)
	}
	if code, out, _ := cli("budgets", "list", "--json"); code != 0 || strings.TrimSpace(out) != "[]" {
		t.Fatalf("list after delete: %d %q", code, out)
	}
	if code, _, errOut := cli("budgets", "delete"); code != 1 || !strings.Contains(errOut, "missing <budget-id>") {
		t.Fatalf("delete without an id: %d %q", code, errOut)
	}
}
