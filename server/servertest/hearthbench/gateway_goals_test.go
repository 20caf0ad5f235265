package main

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestGatewayGoals: the goals are read off the rows they name (16 and 1
// clients, the stream rows' time to first token, allocations at 16
// clients), each on the right side of its bound, and rows that were not
// run give no goal.
func TestGatewayGoals(t *testing.T) {
	rows := []GatewayResult{
		{Run: "agent", Concurrency: 16, Direct: LoadFigures{RPS: 1000}, Hearth: LoadFigures{RPS: 470}, AddedP50ms: 0.40, AddedAllocsPerR: 150},
		{Run: "agent", Concurrency: 1, AddedP50ms: 0.151},
		{Run: "agent stream", Concurrency: 1, Hearth: LoadFigures{TTFTP50ms: 0.3}, AddedTTFTP50ms: 0.2},
		{Run: "pipe nostore", Concurrency: 16, Direct: LoadFigures{RPS: 1000}, Hearth: LoadFigures{RPS: 469}, AddedP50ms: 0.41, AddedAllocsPerR: 151},
		{Run: "pipe nostore", Concurrency: 8, Direct: LoadFigures{RPS: 1000}, Hearth: LoadFigures{RPS: 900}, AddedP50ms: 0.01},
		{Run: "pipe", Concurrency: 16, Direct: LoadFigures{RPS: 7}, Hearth: LoadFigures{RPS: 1}, AddedP50ms: 9},
		{Run: "agent stream", Concurrency: 16, Direct: LoadFigures{RPS: 5}, Hearth: LoadFigures{RPS: 3}, AddedAllocsPerR: 140},
	}
	got := map[string]bool{}
	for _, g := range gatewayGoals(rows) {
		key := fmt.Sprintf("%s|%s|%d", g.Goal, g.Run, g.Conc)
		if _, dup := got[key]; dup {
			t.Fatalf("goal %q twice", key)
		}
		got[key] = g.Met
	}
	want := map[string]bool{
		"share of direct rps|agent|16":          true, // 0.47 ≥ 0.47
		"added p50 ms|agent|16":                 true, // 0.40 ≤ 0.40
		"added p50 ms|agent|1":                  false,
		"added TTFT p50 ms|agent stream|1":      true,
		"allocations a request|agent|16":        true,
		"share of direct rps|pipe nostore|16":   false,
		"added p50 ms|pipe nostore|16":          false,
		"allocations a request|pipe nostore|16": false,
		"allocations a request|agent stream|16": true,
	}
	if len(got) != len(want) {
		t.Fatalf("goals %v, want %v", got, want)
	}
	for k, met := range want {
		if g, ok := got[k]; !ok || g != met {
			t.Fatalf("goal %s: met=%v (present %v), want met=%v; all: %v", k, g, ok, met, got)
		}
	}

	var out bytes.Buffer
	printGateway(&out, rows, 1, "lean")
	text := out.String()
	for _, s := range []string{"Gateway hot path goals", "share of direct rps", "≥ 0.47", "≤ 150", "not met", " met",
		"The direct leg ran 1000 rps at 16 clients, 0.03 of the 33658"} {
		if !strings.Contains(text, s) {
			t.Fatalf("report lacks %q:\n%s", s, text)
		}
	}
	if !regexp.MustCompile(`hearth rps +share +direct p50 ms`).MatchString(text) || !regexp.MustCompile(`agent +16 +1000 +470 +0\.47 `).MatchString(text) {
		t.Fatalf("table lacks the share column:\n%s", text)
	}

	if gs := gatewayGoals([]GatewayResult{{Run: "pipe", Concurrency: 16}}); len(gs) != 0 {
		t.Fatalf("goals from rows the goals do not name: %+v", gs)
	}
	if sp := directSpeed([]GatewayResult{{Run: "agent", Concurrency: 8, Direct: LoadFigures{RPS: 1000}}}); sp != "" {
		t.Fatalf("direct speed without a 16-client row: %q", sp)
	}
	out.Reset()
	printGoals(&out, nil, "")
	if out.Len() != 0 {
		t.Fatalf("no goals printed %q", out.String())
	}
}
