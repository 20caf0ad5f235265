package server_test

import (
	"encoding/json"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

func TestTraces(t *testing.T) {
	ts := servertest.Start(t)
	bob := ts.UserWithKey("bob")
	trace := `{"workflow":{"createdAt":"2026-11-21T10:00:00Z","id":"w1","agentWorkflowId":"","name":"my-flow","startTime":1,"steps":[{"name":"embed","output":[[0.1]],"traces":["trace_1"],"duration":3}],"endTime":4,"duration":3},"entityAuthId":""}`
	r := ts.Do("POST", "/v1/traces", servertest.AdminKey, trace)
	var created map[string]any
	r.JSON(t, &created)
	if r.Status != 200 || created["error"] != nil || created["success"] != true {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	if r := ts.Do("POST", "/v1/traces", servertest.AdminKey, `{"steps":[]}`); r.Status != 400 {
		t.Fatalf("missing workflow: %d %s", r.Status, r.Body)
	}
	var list []struct {
		Name  string          `json:"name"`
		Trace json.RawMessage `json:"trace"`
	}
	ts.Do("GET", "/v1/traces", servertest.AdminKey, nil).JSON(t, &list)
	if len(list) != 1 || list[0].Name != "my-flow" || len(list[0].Trace) < 50 {
		t.Fatalf("list: %+v", list)
	}
	ts.Do("GET", "/v1/traces", bob, nil).JSON(t, &list)
	if len(list) != 0 {
		t.Fatal("bob sees admin's traces")
	}
}
