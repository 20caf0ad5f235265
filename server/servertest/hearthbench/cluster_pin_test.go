package main

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestPlanProcsPinsEveryCountThatFits(t *testing.T) {
	c := procsCores{Node: 2, DB: 4, Clients: 4}
	l := planProcs(16, []int{1, 2, 4}, false, c, true)
	if !l.Pinned || !slices.Equal(l.Counts, []int{1, 2, 4}) || l.Note != "" {
		t.Fatalf("16 cores: %+v", l)
	}
	if l.Clients != "0-3" || l.DB != "4-7" || !slices.Equal(l.Nodes, []string{"8-9", "10-11", "12-13", "14-15"}) {
		t.Fatalf("16 cores: core lists %+v", l)
	}
	// 12 cores hold two nodes pinned, not four: four is left out, said so.
	l = planProcs(12, []int{1, 2, 4}, false, c, true)
	if !l.Pinned || !slices.Equal(l.Counts, []int{1, 2}) || len(l.Nodes) != 2 || !strings.Contains(l.Note, "4 node(s) left out") {
		t.Fatalf("12 cores: %+v", l)
	}
}

func TestPlanProcsOnTwoCoresMeasuresOneNodeUnpinned(t *testing.T) {
	c := procsCores{Node: 2, DB: 4, Clients: 4}
	l := planProcs(2, []int{1, 2, 4}, false, c, true)
	if l.Pinned || !slices.Equal(l.Counts, []int{1}) || len(l.Nodes) != 0 {
		t.Fatalf("2 cores: %+v", l)
	}
	if !strings.Contains(l.Note, "need 10 cores, this machine has 2") || !strings.Contains(l.Note, "2, 4 node(s) left out") {
		t.Fatalf("2 cores: note %q", l.Note)
	}
	// Counts named by the user run, unpinned, whatever the cores.
	l = planProcs(2, []int{2}, true, c, true)
	if l.Pinned || !slices.Equal(l.Counts, []int{1, 2}) || !strings.Contains(l.Note, "need 12 cores") {
		t.Fatalf("2 cores, -procs-nodes 2: %+v", l)
	}
	// No taskset: nothing pinned, nothing but one node unless asked.
	l = planProcs(16, []int{1, 2, 4}, false, c, false)
	if l.Pinned || !slices.Equal(l.Counts, []int{1}) || !strings.Contains(l.Note, "no taskset") {
		t.Fatalf("no taskset: %+v", l)
	}
}

func TestProcsFlagsRefuseWhatTheyCannotUse(t *testing.T) {
	if n, err := parseCounts("1, 2,4"); err != nil || !slices.Equal(n, []int{1, 2, 4}) {
		t.Fatalf("parseCounts: %v %v", n, err)
	}
	for _, bad := range []string{"", "0", "two", "1,17"} {
		if _, err := parseCounts(bad); err == nil {
			t.Errorf("parseCounts(%q) accepted", bad)
		}
	}
	if c, err := parseCores("node=1,db=2"); err != nil || c != (procsCores{Node: 1, DB: 2, Clients: 4}) {
		t.Fatalf("parseCores: %+v %v", c, err)
	}
	for _, bad := range []string{"node=0", "gpu=2", "node", "db=x"} {
		if _, err := parseCores(bad); err == nil {
			t.Errorf("parseCores(%q) accepted", bad)
		}
	}
}

func TestClusterNodesTableShowsEachCount(t *testing.T) {
	rep := &Report{ProcsRounds: 2, ProcsConc: 16, ProcsLayout: &procsLayout{Counts: []int{1, 2}, Note: "not pinned: test"},
		ClusterProcs: []ProcsResult{{Route: "agent.run", EmbeddedRPS: 1000, ClusterRPS: 800, Ratio: 0.8, Nodes: []NodesFigures{
			{Nodes: 1, RPS: 800, P50: 2, P99: 5, Ratio: 0.8, Scale: 1, Scales: []float64{1, 1}, NodeCPU: 0.1, DatabaseCPU: 0.02, Statements: 0.1},
			{Nodes: 2, RPS: 1500, P50: 2, P99: 7, Ratio: 1.5, Scale: 1.88, Scales: []float64{1.9, 1.85}, NodeCPU: 0.11, DatabaseCPU: 0.025, Statements: 0.12},
		}}}}
	var b bytes.Buffer
	printClusterProcs(&b, rep)
	out := b.String()
	for _, want := range []string{"not pinned: test", "Cluster nodes:", "1.88", "1.90 1.85", "40000", "3.5"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// One count: no nodes table.
	rep.ClusterProcs[0].Nodes = rep.ClusterProcs[0].Nodes[:1]
	b.Reset()
	printClusterProcs(&b, rep)
	if strings.Contains(b.String(), "Cluster nodes:") {
		t.Errorf("one node count printed the nodes table:\n%s", b.String())
	}
}

func TestPinPidsRunsTaskset(t *testing.T) {
	if !haveTaskset() {
		t.Skip("no taskset")
	}
	all := cpuList(0, runtime.NumCPU())
	t.Cleanup(func() { pinPids(all, os.Getpid()) })
	if err := pinPids("0", os.Getpid()); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("taskset", "-cp", strconv.Itoa(os.Getpid())).CombinedOutput()
	if err != nil || !strings.HasSuffix(strings.TrimSpace(string(out)), "list: 0") {
		t.Fatalf("after pinning to core 0, taskset says %q (%v)", out, err)
	}
	if err := pinPids("no-such-core", os.Getpid()); err == nil {
		t.Fatal("a core list taskset cannot read was accepted")
	}
}
