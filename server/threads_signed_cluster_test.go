package server_test

import (
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestClusterSignedThreads: two nodes on one PostgreSQL database share the
// thread id key: a store:false run's thread drawn on A is read and
// continued on B, written by an append on B and read on A, and once
// deleted on A (written or not) it is 404 on B: read, continued, appended.
func TestClusterSignedThreads(t *testing.T) {
	up := fake.NewOpenAI()
	defer up.Close()
	nodes := servertest.StartCluster(t, 2, servertest.WithProvider("openai", up.BaseURL(), "sk-server"))
	a, b := nodes[0], nodes[1]
	admin := servertest.AdminKey
	pk := pipeKeyOf(t, a, map[string]any{"name": "nostore", "model": "openai:gpt-4o-mini", "store": false})
	draw := func() string {
		r := runSigned(a, pk, map[string]any{})
		mustStatus(t, r, 200)
		id := r.Header.Get("lb-thread-id")
		if !signedThreadRE.MatchString(id) {
			t.Fatalf("thread id %q", id)
		}
		return id
	}
	id := draw()
	mustStatus(t, b.Do("GET", "/v1/threads/"+id, admin, nil), 200)
	if r := runSigned(b, pk, map[string]any{"threadId": id}); r.Status != 200 || r.Header.Get("lb-thread-id") != id {
		t.Fatalf("continue on B: %d %s", r.Status, r.Body)
	}
	mustStatus(t, b.Do("POST", "/v1/threads/"+id+"/messages", admin, []any{user("from B")}), 200)
	var msgs []map[string]any
	r := a.Do("GET", "/v1/threads/"+id+"/messages", admin, nil)
	mustStatus(t, r, 200)
	if r.JSON(t, &msgs); len(msgs) != 1 || msgs[0]["content"] != "from B" {
		t.Fatalf("messages on A: %s", r.Body)
	}
	id2 := draw()
	mustStatus(t, a.Do("DELETE", "/v1/threads/"+id2, admin, nil), 200)
	for _, d := range []string{id, id2} {
		if d == id {
			mustStatus(t, a.Do("DELETE", "/v1/threads/"+d, admin, nil), 200)
		}
		if r := b.Do("GET", "/v1/threads/"+d, admin, nil); r.Status != 404 {
			t.Fatalf("deleted on A, read on B: %d %s", r.Status, r.Body)
		}
		if r := runSigned(b, pk, map[string]any{"threadId": d}); r.Status != 404 {
			t.Fatalf("deleted on A, continued on B: %d %s", r.Status, r.Body)
		}
		if r := b.Do("POST", "/v1/threads/"+d+"/messages", admin, []any{user("late")}); r.Status != 404 {
			t.Fatalf("deleted on A, appended on B: %d %s", r.Status, r.Body)
		}
	}
}
