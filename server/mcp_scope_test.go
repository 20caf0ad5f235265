package server_test

import (
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/server/app"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestMCPScopes: a key's scope decides what /mcp lists and what it may
// call: memories and pipes outside the scope are left out of the lists
// and refused as tool errors naming the scope; a pipe key sees its pipe
// only; an expired key is refused with 401.
func TestMCPScopes(t *testing.T) {
	var clock atomic.Int64
	clock.Store(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	ts := servertest.Start(t, servertest.WithServices(func(a *app.App) {
		a.Deps.Accounts.SetClock(func() time.Time { return time.Unix(0, clock.Load()) })
	}))
	seedMCP(t, ts)
	key := scopedKey(t, ts, map[string]any{"memories": []string{"animals"}, "pipes": []string{"greet", "zoo"}})

	var mems struct {
		Memories []struct{ Name string } `json:"memories"`
	}
	res := callTool(t, ts, key, "list_memories", nil)
	if json.Unmarshal(res.StructuredContent, &mems) != nil || len(mems.Memories) != 1 || mems.Memories[0].Name != "animals" {
		t.Fatalf("scoped list_memories: %s", res.StructuredContent)
	}
	var pipes struct {
		Pipes []struct{ Name string } `json:"pipes"`
	}
	res = callTool(t, ts, key, "list_pipes", nil)
	if json.Unmarshal(res.StructuredContent, &pipes) != nil || len(pipes.Pipes) != 2 {
		t.Fatalf("scoped list_pipes: %s", res.StructuredContent)
	}
	// retrieve with no memories named searches only the readable ones.
	var rr struct {
		Results []struct {
			MemoryName string `json:"memoryName"`
		} `json:"results"`
	}
	res = callTool(t, ts, key, "retrieve", map[string]any{"query": "African savannah"})
	if json.Unmarshal(res.StructuredContent, &rr) != nil || len(rr.Results) != 4 {
		t.Fatalf("scoped retrieve: %s", res.StructuredContent)
	}
	for _, r := range rr.Results {
		if r.MemoryName != "animals" {
			t.Fatalf("scoped retrieve reached %s", r.MemoryName)
		}
	}
	for name, c := range map[string]struct {
		tool  string
		args  any
		scope string
	}{
		"retrieve plants": {"retrieve", map[string]any{"query": "tree", "memories": []string{"animals", "plants"}}, "memories scope"},
		"run other":       {"run_pipe", map[string]any{"name": "other", "message": "hi"}, "pipes scope"},
	} {
		res := callTool(t, ts, key, c.tool, c.args)
		if !res.IsError || !strings.HasPrefix(res.Content[0].Text, "FORBIDDEN: ") || !strings.Contains(res.Content[0].Text, c.scope) {
			t.Errorf("%s: %+v", name, res)
		}
	}
	if res := callTool(t, ts, key, "run_pipe", map[string]any{"name": "greet", "variables": map[string]string{"who": "Bo"}}); res.IsError || res.Content[0].Text != "Say hello to Bo" {
		t.Fatalf("scoped run_pipe: %+v", res)
	}

	// A read-only key runs and reads through /mcp (it changes nothing).
	ro := scopedKey(t, ts, map[string]any{"read_only": true})
	if res := callTool(t, ts, ro, "run_pipe", map[string]any{"name": "other", "message": "hi"}); res.IsError {
		t.Fatalf("read-only run_pipe: %+v", res)
	}

	// A pipe key: its pipe only, no memory tools.
	r := ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "solo", "model": "hearth:echo"})
	var created struct {
		APIKey string `json:"api_key"`
	}
	r.JSON(t, &created)
	if got := toolNames(t, ts, created.APIKey); !slices.Equal(got, []string{"list_pipes", "run_pipe"}) {
		t.Fatalf("pipe key tools %v", got)
	}
	res = callTool(t, ts, created.APIKey, "list_pipes", nil)
	if json.Unmarshal(res.StructuredContent, &pipes) != nil || len(pipes.Pipes) != 1 || pipes.Pipes[0].Name != "solo" {
		t.Fatalf("pipe key list_pipes: %s", res.StructuredContent)
	}
	if res := callTool(t, ts, created.APIKey, "run_pipe", map[string]any{"message": "just me"}); res.IsError || res.Content[0].Text != "just me" {
		t.Fatalf("pipe key run_pipe: %+v", res)
	}
	if res := callTool(t, ts, created.APIKey, "run_pipe", map[string]any{"name": "greet", "message": "x"}); !res.IsError {
		t.Fatalf("pipe key ran another pipe: %+v", res)
	}
	if out := rpc(t, ts, created.APIKey, "tools/call", map[string]any{"name": "retrieve", "arguments": map[string]any{"query": "q"}}); out.Error == nil || out.Error.Code != -32602 {
		t.Fatalf("pipe key retrieve: %+v", out)
	}

	// Expiry: refused at the door once past.
	exp := scopedKey(t, ts, map[string]any{"expires_at": time.Unix(0, clock.Load()).Add(time.Hour).Format(time.RFC3339)})
	toolNames(t, ts, exp)
	clock.Add(int64(2 * time.Hour))
	r = mcpPost(ts, exp, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if r.Status != 401 || !strings.Contains(string(r.Body), "expires_at") {
		t.Fatalf("expired key: %d %s", r.Status, r.Body)
	}
}

// TestMCPResources: documents of readable memories are resources; a read
// returns the indexed text, outside the scope it is invalid params, and a
// missing document is resource-not-found.
func TestMCPResources(t *testing.T) {
	ts := servertest.Start(t)
	seedMCP(t, ts)
	var tpl struct {
		ResourceTemplates []struct {
			URITemplate string `json:"uriTemplate"`
		} `json:"resourceTemplates"`
	}
	rpcResult(t, ts, admin, "resources/templates/list", nil, &tpl)
	if len(tpl.ResourceTemplates) != 1 || tpl.ResourceTemplates[0].URITemplate != "hearth://memory/{memory}/{document}" {
		t.Fatalf("templates %+v", tpl)
	}
	type list struct {
		Resources []struct {
			URI, Name, MimeType string
		} `json:"resources"`
	}
	var all list
	rpcResult(t, ts, admin, "resources/list", nil, &all)
	if len(all.Resources) != 6 {
		t.Fatalf("resources %+v", all)
	}
	if out := rpc(t, ts, admin, "resources/list", map[string]any{"cursor": "not-a-cursor"}); out.Error == nil || out.Error.Code != -32602 || out.Error.Data.Field != "cursor" {
		t.Fatalf("bad cursor: %+v", out.Error)
	}
	key := scopedKey(t, ts, map[string]any{"memories": []string{"plants"}})
	var scoped list
	rpcResult(t, ts, key, "resources/list", nil, &scoped)
	if len(scoped.Resources) != 2 || !strings.HasPrefix(scoped.Resources[0].URI, "hearth://memory/plants/") {
		t.Fatalf("scoped resources %+v", scoped)
	}
	var read struct {
		Contents []struct{ URI, MimeType, Text string } `json:"contents"`
	}
	rpcResult(t, ts, key, "resources/read", map[string]any{"uri": "hearth://memory/plants/moss.txt"}, &read)
	if len(read.Contents) != 1 || read.Contents[0].Text != "Moss grows in damp forests." || read.Contents[0].URI != "hearth://memory/plants/moss.txt" {
		t.Fatalf("read %+v", read)
	}
	for uri, want := range map[string]struct {
		code  int
		data  string
		field string
	}{
		"hearth://memory/animals/zebra.txt": {-32602, "FORBIDDEN", "memories"},
		"hearth://memory/plants/nope.txt":   {-32002, "NOT_FOUND", ""},
		"hearth://memory/plants":            {-32602, "BAD_REQUEST", "uri"},
		"file:///etc/passwd":                {-32602, "BAD_REQUEST", "uri"},
	} {
		out := rpc(t, ts, key, "resources/read", map[string]any{"uri": uri})
		if out.Error == nil || out.Error.Code != want.code || out.Error.Data.Code != want.data || out.Error.Data.Field != want.field {
			t.Errorf("read %s: %+v", uri, out.Error)
		}
	}
}
