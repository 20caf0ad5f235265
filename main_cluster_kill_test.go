package main

import (
	"testing"
	"time"

	"github.com/hearth-dev/hearth/blob/postgres/pgtest"
	"github.com/hearth-dev/hearth/providers/fake"
)

// TestClusterKill9DuringIngestion runs three `hearth serve` processes on
// one PostgreSQL database with a 2 s job lease. Thirty documents are
// uploaded through signed URLs that one node issues and another receives;
// one node is killed with SIGKILL while it is embedding a document (its
// upstream answers slowly, so the kill lands mid-job). Every document then
// completes through the two other nodes, each is found on both of them by
// a word only it contains, and the database holds every chunk once.
func TestClusterKill9DuringIngestion(t *testing.T) {
	url := pgtest.URL(t)
	bin := hearthBinary(t)
	nodes := startClusterNodes(t, bin, url, 3)
	victim, survivors := nodes[2], nodes[:2]
	for _, n := range survivors {
		n.up.SetDefault(fake.Reply{FirstByteDelay: 150 * time.Millisecond})
	}
	victim.up.SetDefault(fake.Reply{FirstByteDelay: 10 * time.Second})
	nodes[0].must(t, "POST", "/v1/memory", map[string]any{"name": "kb", "chunk_size": 400, "chunk_overlap": 40})

	const docs = 30
	for i := range docs {
		uploadVia(t, nodes[i%3], nodes[(i+1)%3], "kb", i)
	}
	deadline := time.Now().Add(30 * time.Second)
	for victim.up.Count() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the node to kill never started embedding a document")
		}
		time.Sleep(10 * time.Millisecond)
	}
	victim.kill()

	for _, n := range survivors {
		n.up.SetDefault(fake.Reply{})
	}
	waitCompleted(t, survivors[0], "kb", docs, 90*time.Second)
	for i := range docs {
		for _, n := range survivors {
			waitFinds(t, n, "kb", i, 20*time.Second)
		}
	}
	checkChunksOnce(t, url, docs)
}

// TestClusterNodeCatchesUp: a node stopped while the others ingest
// documents finds them once it is started again on its data dir, whose
// search replicas it brings up to date from the database's change log.
func TestClusterNodeCatchesUp(t *testing.T) {
	url := pgtest.URL(t)
	bin := hearthBinary(t)
	nodes := startClusterNodes(t, bin, url, 3)
	away := nodes[2]
	nodes[0].must(t, "POST", "/v1/memory", map[string]any{"name": "kb", "chunk_size": 400, "chunk_overlap": 40})
	uploadVia(t, nodes[0], nodes[1], "kb", 0)
	waitCompleted(t, nodes[0], "kb", 1, 30*time.Second)
	waitFinds(t, away, "kb", 0, 20*time.Second)

	away.stop(t)
	const docs = 8
	for i := 1; i < docs; i++ {
		uploadVia(t, nodes[i%2], nodes[(i+1)%2], "kb", i)
	}
	waitCompleted(t, nodes[1], "kb", docs, 60*time.Second)

	away.restart(t, bin)
	for i := range docs {
		waitFinds(t, away, "kb", i, 30*time.Second)
	}
	checkChunksOnce(t, url, docs)
}
