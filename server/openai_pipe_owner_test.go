package server_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

// TestOpenAIPipeOfAnOrg: pipe:<org>/<name> runs an organization's pipe
// with a member's user key, as the org (its run log); a user who is not a
// member gets 403 naming model, an unknown owner or pipe 404, and an org
// or pipe key reaches no other owner. A member's model list shows the
// org's pipes.
func TestOpenAIPipeOfAnOrg(t *testing.T) {
	ts := servertest.Start(t)
	alice := ts.UserWithKey("alice")
	bob := ts.UserWithKey("bob")
	acme := ts.OrgWithKey("acme", "alice")
	mustStatus(t, ts.Do("POST", "/v1/pipes", acme, map[string]any{"name": "helper", "model": "hearth:echo"}), 200)
	chat := func(key, model string) *servertest.Response {
		return ts.Do("POST", "/openai/v1/chat/completions", key, map[string]any{"model": model,
			"messages": []map[string]any{{"role": "user", "content": "hi from a member"}}})
	}
	r := chat(alice, "pipe:acme/helper")
	mustStatus(t, r, 200)
	if !strings.Contains(string(r.Body), "hi from a member") || r.Header.Get("lb-thread-id") == "" {
		t.Fatalf("member run: %s %v", r.Body, r.Header)
	}
	ts.RunLog.Flush()
	var runs struct {
		Data []struct {
			Pipe string `json:"pipe"`
		} `json:"data"`
	}
	ts.Do("GET", "/v1/runs", acme, nil).JSON(t, &runs)
	if len(runs.Data) != 1 || runs.Data[0].Pipe != "helper" {
		t.Fatalf("org run log %+v", runs.Data)
	}
	for _, tc := range []struct {
		key, model string
		status     int
		want       string
	}{
		{bob, "pipe:acme/helper", 403, "not a member"},
		{alice, "pipe:nobody/helper", 404, "no owner nobody"},
		{alice, "pipe:acme/missing", 404, "pipe:acme/missing not found"},
		{acme, "pipe:alice/helper", 403, "org key runs its own owner's pipes only"},
	} {
		r := chat(tc.key, tc.model)
		if r.Status != tc.status || !strings.Contains(string(r.Body), `"param":"model"`) || !strings.Contains(string(r.Body), tc.want) {
			t.Fatalf("%s: %d %s", tc.model, r.Status, r.Body)
		}
	}
	models := func(key string) []string {
		var list struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		ts.Do("GET", "/openai/v1/models", key, nil).JSON(t, &list)
		var ids []string
		for _, m := range list.Data {
			ids = append(ids, m.ID)
		}
		return ids
	}
	if ids := models(alice); !slices.Contains(ids, "pipe:acme/helper") {
		t.Fatalf("member's models %v", ids)
	}
	if ids := models(bob); slices.Contains(ids, "pipe:acme/helper") {
		t.Fatalf("non-member's models %v", ids)
	}
	mustStatus(t, ts.Do("GET", "/openai/v1/models/pipe:acme/helper", alice, nil), 200)
	mustStatus(t, ts.Do("GET", "/openai/v1/models/pipe:acme%2Fhelper", alice, nil), 200)
}
