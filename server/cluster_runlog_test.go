package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestClusterRunContent: with two nodes on one database, the owner's run
// content setting made on A applies to a run on B, A answers the run with
// its content, and the content sweep runs on one node at a time (its lock
// held on A keeps B's sweep from running).
func TestClusterRunContent(t *testing.T) {
	nodes := servertest.StartCluster(t, 2)
	a, b := nodes[0], nodes[1]
	mustStatus(t, a.Do("PUT", "/v1/runs/settings", admin, map[string]any{"log_content": true}), 200)
	mustStatus(t, a.Do("POST", "/v1/pipes", admin, map[string]any{"name": "p", "model": "hearth:echo"}), 200)
	mustStatus(t, b.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "messages": []any{user("from B")}}), 200)
	b.RunLog.Flush()
	var page struct {
		Data []engine.RunRecord `json:"data"`
	}
	a.Do("GET", "/v1/runs", admin, nil).JSON(t, &page)
	if len(page.Data) != 1 || !page.Data[0].ContentStored {
		t.Fatalf("runs on A: %+v", page.Data)
	}
	var d runDetail
	a.Do("GET", "/v1/runs/"+page.Data[0].ID, admin, nil).JSON(t, &d)
	if d.Content == nil || d.Content.Completion == "" {
		t.Fatalf("run of B read on A: %+v", d)
	}

	ctx := context.Background()
	deadline := time.Now().Add(10 * time.Second)
	var release func()
	for {
		r, ok, err := a.App.Cluster.TryLock(ctx, "runlog.content.sweep")
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			release = r
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the sweep lock stayed held")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, ran, err := b.RunLog.SweepContent(ctx, b.App.Cluster); err != nil || ran {
		t.Fatalf("B swept while A held the lock: ran %v, %v", ran, err)
	}
	release()
	if _, ran, err := b.RunLog.SweepContent(ctx, b.App.Cluster); err != nil || !ran {
		t.Fatalf("B's sweep after A released the lock: ran %v, %v", ran, err)
	}
}
