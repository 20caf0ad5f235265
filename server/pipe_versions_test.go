package server_test

import (
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/server/servertest"
)

type versionView struct {
	Version     int    `json:"version"`
	AuthorKeyID string `json:"author_key_id"`
	Config      struct {
		Model       string           `json:"model"`
		Temperature float64          `json:"temperature"`
		Messages    []engine.Message `json:"messages"`
	} `json:"config"`
}

// TestPipeVersions: create, v1 update, upsert and beta update each make a
// version with its author; diff names the changed fields; restore makes
// a new version and the (cached) run path follows it; a run may name an
// older version, which the run log records; a missing version is a 404
// naming `version`.
func TestPipeVersions(t *testing.T) {
	ts := servertest.Start(t)
	var k struct {
		Key  string `json:"key"`
		Info struct {
			ID string `json:"id"`
		} `json:"info"`
	}
	ts.Do("POST", "/v1/keys", admin, map[string]any{"name": "editor"}).JSON(t, &k)
	ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "v", "model": "hearth:echo", "messages": []any{user("one")}})
	steps := []struct {
		method, path string
		body         map[string]any
	}{
		{"POST", "/v1/pipes/v", map[string]any{"messages": []any{user("two")}}},
		{"POST", "/v1/pipes", map[string]any{"name": "v", "upsert": true, "temperature": 0.2}},
		{"PATCH", "/beta/pipes/admin/v", map[string]any{"description": "from beta"}},
	}
	for _, s := range steps {
		if r := ts.Do(s.method, s.path, k.Key, s.body); r.Status != 200 {
			t.Fatalf("%s %s: %d %s", s.method, s.path, r.Status, r.Body)
		}
	}
	var list []versionView
	ts.Do("GET", "/v1/pipes/v/versions", admin, nil).JSON(t, &list)
	if len(list) != 4 {
		t.Fatalf("versions %+v", list)
	}
	for i, v := range list {
		if v.Version != i+1 || (i > 0 && v.AuthorKeyID != k.Info.ID) || (i == 0 && (v.AuthorKeyID == "" || v.AuthorKeyID == k.Info.ID)) {
			t.Fatalf("version %d: %+v (editor key %s)", i, v, k.Info.ID)
		}
	}
	if list[2].Config.Temperature != 0.2 || list[1].Config.Temperature == 0.2 {
		t.Fatalf("upsert version %+v", list[1:3])
	}

	var diff struct {
		Changes []engine.FieldChange `json:"changes"`
	}
	ts.Do("GET", "/v1/pipes/v/versions/diff?from=1&to=3", admin, nil).JSON(t, &diff)
	var fields []string
	for _, c := range diff.Changes {
		fields = append(fields, c.Field)
	}
	if strings.Join(fields, ",") != "messages,temperature" || diff.Changes[1].To != 0.2 {
		t.Fatalf("diff %+v", diff.Changes)
	}

	// Twice: the second run is served from the run path's cache.
	for range 2 {
		if st, got := runCompletion(t, ts, admin, map[string]any{"name": "v"}); st != 200 || got != "two" {
			t.Fatalf("latest run: %d %q", st, got)
		}
	}
	if st, got := runCompletion(t, ts, admin, map[string]any{"name": "v", "version": 1}); st != 200 || got != "one" {
		t.Fatalf("run of version 1: %d %q", st, got)
	}
	r := ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "v", "version": 9})
	if r.Status != 404 || !strings.Contains(string(r.Body), "version") {
		t.Fatalf("missing version: %d %s", r.Status, r.Body)
	}
	ts.RunLog.Flush()
	var runs struct{ Data []engine.RunRecord }
	ts.Do("GET", "/v1/pipes/v/runs?limit=2", admin, nil).JSON(t, &runs)
	if len(runs.Data) != 2 || runs.Data[0].PipeVersion != 1 || runs.Data[1].PipeVersion != 4 {
		t.Fatalf("run records %+v", runs.Data)
	}

	var restored versionView
	if r := ts.Do("POST", "/v1/pipes/v/versions/1/restore", k.Key, nil); r.Status != 200 {
		t.Fatalf("restore: %d %s", r.Status, r.Body)
	} else {
		r.JSON(t, &restored)
	}
	if restored.Version != 5 || restored.AuthorKeyID != k.Info.ID || restored.Config.Messages[0].Content.String() != "one" {
		t.Fatalf("restored %+v", restored)
	}
	if st, got := runCompletion(t, ts, admin, map[string]any{"name": "v"}); st != 200 || got != "one" {
		t.Fatalf("run after restore: %d %q", st, got)
	}
	if r := ts.Do("GET", "/v1/pipes/v/versions/4", admin, nil); r.Status != 200 || !strings.Contains(string(r.Body), "from beta") {
		t.Fatalf("old version after restore: %d %s", r.Status, r.Body)
	}
	if r := ts.Do("POST", "/v1/pipes/v/versions/7/restore", admin, nil); r.Status != 404 || !strings.Contains(string(r.Body), `"version`) {
		t.Fatalf("restore missing: %d %s", r.Status, r.Body)
	}
	for _, bad := range []struct{ method, path string }{{"GET", "/v1/pipes/v/versions/x"}, {"POST", "/v1/pipes/v/versions/0/restore"}} {
		if r := ts.Do(bad.method, bad.path, admin, nil); r.Status != 400 || !strings.Contains(string(r.Body), `"version"`) {
			t.Fatalf("bad number %s %s: %d %s", bad.method, bad.path, r.Status, r.Body)
		}
	}
}
