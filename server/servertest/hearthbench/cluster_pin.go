package main

import (
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

// procsCores is how many cores the cluster-procs section gives each kind
// of process when it pins them: every hearth serve node (and the embedded
// process, on the first node's cores), PostgreSQL, and this process (the
// clients and the fake upstream).
type procsCores struct {
	Node, DB, Clients int
}

// need is the cores a pinned layout of n nodes takes.
func (c procsCores) need(n int) int { return n*c.Node + c.DB + c.Clients }

// procsLayout is where the cluster-procs processes run.
type procsLayout struct {
	// Counts are the cluster node counts to measure, 1 first.
	Counts []int `json:"counts"`
	// Pinned says the processes are pinned with taskset to the core lists
	// below; when false every process shares every core and Note says why.
	Pinned  bool     `json:"pinned"`
	Clients string   `json:"clients_cores,omitempty"` // this process: the clients and the fake upstream
	DB      string   `json:"db_cores,omitempty"`      // PostgreSQL's server and backends
	Nodes   []string `json:"node_cores,omitempty"`    // node i; the embedded process runs on Nodes[0]
	// Note says why the layout is not pinned or which counts were left out.
	Note string `json:"note,omitempty"`
}

// planProcs places the cluster-procs processes on a machine with cores
// cores. asked are the node counts asked for; explicit says the user
// named them (-procs-nodes), else counts a pinned layout cannot hold are
// left out (one node is always measured: every ratio is against it).
// Processes are pinned when taskset is there and the largest count fits:
// this process first, then PostgreSQL, then the nodes in order.
func planProcs(cores int, asked []int, explicit bool, c procsCores, haveTaskset bool) procsLayout {
	counts := []int{1}
	for _, n := range asked {
		if n > 1 && !slices.Contains(counts, n) {
			counts = append(counts, n)
		}
	}
	slices.Sort(counts)
	var l procsLayout
	var left []string
	if !explicit {
		for _, n := range counts {
			if n == 1 || (haveTaskset && c.need(n) <= cores) {
				l.Counts = append(l.Counts, n)
			} else {
				left = append(left, strconv.Itoa(n))
			}
		}
	} else {
		l.Counts = counts
	}
	top := l.Counts[len(l.Counts)-1]
	switch {
	case !haveTaskset:
		l.Note = "not pinned: no taskset on this machine (util-linux); every process shares every core"
	case c.Node < 1 || c.DB < 1 || c.Clients < 1:
		l.Note = "not pinned: -procs-cores asks for no cores of some kind; every process shares every core"
	case c.need(top) > cores:
		l.Note = fmt.Sprintf("not pinned: %d node(s) at %d cores each, PostgreSQL on %d and the clients on %d need %d cores, this machine has %d; every process shares every core",
			top, c.Node, c.DB, c.Clients, c.need(top), cores)
	default:
		l.Pinned = true
		l.Clients = cpuList(0, c.Clients)
		l.DB = cpuList(c.Clients, c.DB)
		for i := range top {
			l.Nodes = append(l.Nodes, cpuList(c.Clients+c.DB+i*c.Node, c.Node))
		}
	}
	if len(left) > 0 {
		sep := ""
		if l.Note != "" {
			sep = "; "
		}
		l.Note += fmt.Sprintf("%s%s node(s) left out: pinned they need more than this machine's %d cores (-procs-nodes runs them unpinned)",
			sep, strings.Join(left, ", "), cores)
	}
	return l
}

// cpuList is taskset's list of n cores from first ("4-7", or "4").
func cpuList(first, n int) string {
	if n == 1 {
		return strconv.Itoa(first)
	}
	return fmt.Sprintf("%d-%d", first, first+n-1)
}

// parseCounts reads -procs-nodes ("1,2,4").
func parseCounts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 16 {
			return nil, fmt.Errorf("-procs-nodes: %q is not a node count from 1 to 16", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// parseCores reads -procs-cores ("node=2,db=4,clients=4").
func parseCores(s string) (procsCores, error) {
	c := procsCores{Node: 2, DB: 4, Clients: 4}
	for _, f := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(f), "=")
		n, err := strconv.Atoi(v)
		if !ok || err != nil || n < 1 {
			return c, fmt.Errorf("-procs-cores: %q is not kind=cores with cores ≥ 1", f)
		}
		switch k {
		case "node":
			c.Node = n
		case "db":
			c.DB = n
		case "clients":
			c.Clients = n
		default:
			return c, fmt.Errorf("-procs-cores: %q: the kinds are node, db and clients", k)
		}
	}
	return c, nil
}

// pinPids pins the processes pids, every thread of each, to the cores of
// list.
func pinPids(list string, pids ...int) error {
	for _, pid := range pids {
		if out, err := exec.Command("taskset", "-a", "-cp", list, strconv.Itoa(pid)).CombinedOutput(); err != nil {
			return fmt.Errorf("taskset %s %d: %w: %s", list, pid, err, out)
		}
	}
	return nil
}

// haveTaskset says taskset can be run.
func haveTaskset() bool {
	_, err := exec.LookPath("taskset")
	return err == nil
}
