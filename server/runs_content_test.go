package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/server/servertest"
)

// runDetail is GET /v1/runs/{id}.
type runDetail struct {
	engine.RunRecord
	Content *engine.RunContent `json:"content"`
}

func getRun(t *testing.T, ts *servertest.Server, id string) runDetail {
	t.Helper()
	r := ts.Do("GET", "/v1/runs/"+id, admin, nil)
	mustStatus(t, r, 200)
	var d runDetail
	r.JSON(t, &d)
	return d
}

// contentKeys counts the run content records and their expiry index
// entries in the store.
func contentKeys(t *testing.T, ts *servertest.Server) int {
	t.Helper()
	n := 0
	err := ts.Store.View(context.Background(), func(tx engine.Tx) error {
		return tx.Scan("runcontent", "", func(k string, _ []byte) error {
			if !strings.HasPrefix(k, "runcontentcfg/") {
				n++
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

const secretText = "my key is sk-proj-abcdefghijklmnopqrstuvwxyz123456 keep it"

// TestRunContentOptIn: with the pipe's log_content off and no owner
// setting, runs store no content at all; a pipe with log_content keeps the
// messages and the completion with keys redacted, shown by GET
// /v1/runs/{id}; the owner setting keeps the content of every run
// (another pipe, the agent) with its own retention.
func TestRunContentOptIn(t *testing.T) {
	ts := servertest.Start(t)
	allowed(t, "create off", ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "off", "model": "hearth:echo"}))
	allowed(t, "create on", ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "on", "model": "hearth:echo", "log_content": true}))
	var view struct {
		LogContent bool `json:"log_content"`
	}
	ts.Do("GET", "/v1/pipes/on", admin, nil).JSON(t, &view)
	if !view.LogContent {
		t.Fatal("GET /v1/pipes/on: log_content not shown")
	}

	allowed(t, "run off", ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "off", "messages": []any{user(secretText)}}))
	runs := listRuns(t, ts)
	if len(runs) != 1 || runs[0].ContentStored {
		t.Fatalf("runs %+v", runs)
	}
	if d := getRun(t, ts, runs[0].ID); d.Content != nil || d.Pipe != "off" || d.Kind != engine.RunKindPipe {
		t.Fatalf("run detail without opt-in %+v", d)
	}
	if n := contentKeys(t, ts); n != 0 {
		t.Fatalf("%d content records stored with the option off", n)
	}

	before := time.Now()
	allowed(t, "run on", ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "on", "messages": []any{user(secretText)}}))
	runs = listRuns(t, ts)
	d := getRun(t, ts, runs[0].ID)
	if !d.ContentStored || d.Content == nil || d.Pipe != "on" {
		t.Fatalf("run detail with log_content %+v", d)
	}
	last := d.Content.Messages[len(d.Content.Messages)-1]
	if last.Role != "user" || !strings.Contains(last.Content.Text, "my key is [REDACTED] keep it") {
		t.Fatalf("stored messages %+v", d.Content.Messages)
	}
	if d.Content.Completion == "" || strings.Contains(d.Content.Completion, "sk-proj") || strings.Contains(string(ts.Do("GET", "/v1/runs/"+d.ID, admin, nil).Body), "sk-proj") {
		t.Fatalf("stored completion %q: key not redacted", d.Content.Completion)
	}
	if exp := d.Content.ExpiresAt; exp.Before(before.Add(7*24*time.Hour-time.Minute)) || exp.After(time.Now().Add(7*24*time.Hour)) {
		t.Fatalf("expires_at %s, want 7 days (the default) from now", exp)
	}

	refused(t, "bad retention", ts.Do("PUT", "/v1/runs/settings", admin, map[string]any{"log_content": true, "retention": "forever"}), 400, "retention")
	scoped := scopedKey(t, ts, map[string]any{"pipes": []string{"on"}})
	refused(t, "scoped key", ts.Do("PUT", "/v1/runs/settings", scoped, map[string]any{"log_content": true}), 403, "scope")
	refused(t, "scoped key reads another pipe's run", ts.Do("GET", "/v1/runs/"+runs[1].ID, scoped, nil), 403, "pipes")
	r := ts.Do("PUT", "/v1/runs/settings", admin, map[string]any{"log_content": true, "retention": "2h"})
	mustStatus(t, r, 200)
	var set struct {
		LogContent       bool   `json:"log_content"`
		Retention        string `json:"retention"`
		DefaultRetention string `json:"default_retention"`
	}
	r.JSON(t, &set)
	if !set.LogContent || set.Retention != "2h" || set.DefaultRetention != "7d" {
		t.Fatalf("settings %+v", set)
	}
	allowed(t, "run off, owner opted in", ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "off", "messages": []any{user("second")}}))
	allowed(t, "agent, owner opted in", ts.Do("POST", "/v1/agent/run", admin, map[string]any{"model": "hearth:echo", "input": "agent says " + secretText}))
	runs = listRuns(t, ts)
	agentRun, pipeRun := getRun(t, ts, runs[0].ID), getRun(t, ts, runs[1].ID)
	if pipeRun.Content == nil || pipeRun.Pipe != "off" || pipeRun.Content.ExpiresAt.After(time.Now().Add(2*time.Hour)) {
		t.Fatalf("owner opt-in pipe run %+v", pipeRun)
	}
	if agentRun.Kind != engine.RunKindAgent || agentRun.Content == nil || !strings.Contains(agentRun.Content.Messages[len(agentRun.Content.Messages)-1].Content.Text, "agent says my key is [REDACTED]") {
		t.Fatalf("owner opt-in agent run %+v", agentRun)
	}
	mustStatus(t, ts.Do("PUT", "/v1/runs/settings", admin, map[string]any{"log_content": false}), 200)
	allowed(t, "run off again", ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "off", "messages": []any{user("third")}}))
	if runs = listRuns(t, ts); runs[0].ContentStored {
		t.Fatalf("content stored after the owner turned it off: %+v", runs[0])
	}
	if n := contentKeys(t, ts); n != 3*2 {
		t.Fatalf("%d content and expiry records, want 6 (three runs)", n)
	}
	mustStatus(t, ts.Do("GET", "/v1/runs/nosuchrun", admin, nil), 404)
}

// TestRunContentBetaPipe: the beta pipe routes read and show log_content
// under config.meta; changing it makes a pipe version whose diff shows it.
func TestRunContentBetaPipe(t *testing.T) {
	ts := servertest.Start(t)
	r := ts.Do("POST", "/beta/user/pipes", admin, map[string]any{"name": "b", "config": map[string]any{"meta": map[string]any{"log_content": true}}})
	allowed(t, "beta create", r)
	var v struct {
		LogContent bool `json:"log_content"`
	}
	ts.Do("GET", "/v1/pipes/b", admin, nil).JSON(t, &v)
	if !v.LogContent {
		t.Fatal("beta create did not set log_content")
	}
	var bv struct {
		Config struct {
			Meta struct {
				LogContent *bool `json:"log_content"`
			} `json:"meta"`
		} `json:"config"`
	}
	ts.Do("GET", "/beta/pipes/admin/b", admin, nil).JSON(t, &bv)
	if bv.Config.Meta.LogContent == nil || !*bv.Config.Meta.LogContent {
		t.Fatalf("beta view meta: %+v", bv)
	}
	allowed(t, "turn it off", ts.Do("POST", "/v1/pipes/b", admin, map[string]any{"log_content": false}))
	r = ts.Do("GET", "/v1/pipes/b/versions/diff?from=1&to=2", admin, nil)
	mustStatus(t, r, 200)
	if !strings.Contains(string(r.Body), `"field":"log_content"`) {
		t.Fatalf("version diff does not show log_content: %s", r.Body)
	}
}
