package server_test

import (
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
)

// TestFaultSlowCommit: slow-commit=D is a server-wide rule. In the
// LB-Fault header it is a 400 naming the header and HEARTH_FAULTS; set
// server-wide it leaves upstream calls alone and a run still answers
// with its thread stored.
func TestFaultSlowCommit(t *testing.T) {
	ts, _ := faultServer(t)
	r := runWithFault(ts, "p", "slow-commit=1s", false)
	if r.Status != 400 || !strings.Contains(string(r.Body), "LB-Fault") || !strings.Contains(string(r.Body), "HEARTH_FAULTS") {
		t.Fatalf("slow-commit in the header: %d %s", r.Status, r.Body)
	}

	ts, up := faultServer(t, "slow-commit=10ms")
	r = ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "messages": userMsg("hold on")})
	mustStatus(t, r, 200)
	if up.Count() != 1 || !strings.Contains(string(r.Body), fake.DefaultText) {
		t.Fatalf("run: upstream calls %d, %s", up.Count(), r.Body)
	}
	m := ts.Do("GET", "/v1/threads/"+r.Header.Get("lb-thread-id")+"/messages", admin, nil)
	mustStatus(t, m, 200)
	if !strings.Contains(string(m.Body), "hold on") || !strings.Contains(string(m.Body), fake.DefaultText) {
		t.Fatalf("thread after the run: %s", m.Body)
	}
	if _, commits := ts.App.ThreadWrites.Stats(); commits == 0 {
		t.Fatal("no thread write went through the group store")
	}
}
