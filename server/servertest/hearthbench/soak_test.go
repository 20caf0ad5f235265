package main

import (
	"bytes"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// TestSoakSamplesAndHeapProfile: a short soak sends requests without
// errors, samples RSS, heap and the live heap at its start and end, writes
// the heap profile it was asked for, and prints its row.
func TestSoakSamplesAndHeapProfile(t *testing.T) {
	prefix := t.TempDir() + "/heap"
	opts := gatewayOptions{Soak: 300 * time.Millisecond, SoakConc: 2, SoakHeapProfile: prefix,
		Runs: map[string]bool{"agent": true}}
	rows, soaks, err := runGateway(opts, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 0 || len(soaks) != 1 {
		t.Fatalf("%d table rows and %d soaks; want only the agent soak", len(rows), len(soaks))
	}
	s := soaks[0]
	if s.Requests == 0 || s.Errors != 0 || len(s.Samples) < 2 {
		t.Fatalf("soak %+v: want requests, no errors, a first and a last sample", s)
	}
	for _, sm := range s.Samples {
		if sm.RSSMiB <= 0 || sm.LiveMiB <= 0 || sm.Goroutines == 0 {
			t.Fatalf("sample %+v lacks a figure", sm)
		}
	}
	if fi, err := os.Stat(prefix + "-agent.prof"); err != nil || fi.Size() == 0 {
		t.Fatalf("heap profile not written: %v", err)
	}
	var out bytes.Buffer
	printSoak(&out, soaks)
	if !strings.Contains(out.String(), "live MiB first/max/last") || !strings.Contains(out.String(), "agent samples (s: RSS MiB, of it mapped files") {
		t.Fatalf("report:\n%s", out.String())
	}
}

// TestUpstreamStartsUnrecorded: the fake upstream keeps no request unless
// asked to, so a soak's memory is Hearth's and not the fake's record of
// every request.
func TestUpstreamStartsUnrecorded(t *testing.T) {
	f, err := startUpstream("")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := http.Post(f.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if f.Count() != 1 {
		t.Fatalf("the fake saw %d requests, want 1", f.Count())
	}
	if n := len(f.Requests()); n != 0 {
		t.Fatalf("the fake recorded %d requests with recording never turned on", n)
	}
}
