package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

type apiErr struct {
	Success bool `json:"success"`
	Error   struct {
		Status  int    `json:"status"`
		Code    string `json:"code"`
		Message string `json:"message"`
		Docs    string `json:"docs"`
	} `json:"error"`
}

func TestErrorShapes(t *testing.T) {
	ts := servertest.Start(t, servertest.WithConfig(func(c *server.Config) { c.MaxBodyBytes = 2048 }))
	big := `{"name":"` + strings.Repeat("x", 4096) + `"}`
	cases := []struct {
		name, method, path, key string
		body                    any
		status                  int
		code                    string
	}{
		{"unknown route", "GET", "/v1/nope", "", nil, 404, "NOT_FOUND"},
		{"wrong method", "DELETE", "/health", "", nil, 405, "METHOD_NOT_ALLOWED"},
		{"missing key", "GET", "/v1/keys", "", nil, 401, "UNAUTHORIZED"},
		{"bad key", "GET", "/v1/keys", "hth_user_nope", nil, 401, "UNAUTHORIZED"},
		{"oversize body", "POST", "/v1/keys", servertest.AdminKey, big, 413, "PAYLOAD_TOO_LARGE"},
		{"malformed json", "POST", "/v1/keys", servertest.AdminKey, `{"name":`, 400, "BAD_REQUEST"},
		{"wrong type names field", "POST", "/v1/keys", servertest.AdminKey, `{"name":5}`, 400, "BAD_REQUEST"},
		{"too deep", "POST", "/v1/keys", servertest.AdminKey, strings.Repeat("[", 100) + strings.Repeat("]", 100), 400, "BAD_REQUEST"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := ts.Do(tc.method, tc.path, tc.key, tc.body)
			if r.Status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.Status, tc.status, r.Body)
			}
			if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Fatalf("content-type %q", ct)
			}
			var e apiErr
			r.JSON(t, &e)
			if e.Success || e.Error.Status != tc.status || e.Error.Code != tc.code || e.Error.Message == "" ||
				e.Error.Docs != "https://langbase.com/docs/api-reference/errors/"+strings.ToLower(tc.code) {
				t.Fatalf("body %s", r.Body)
			}
			if r.Header.Get("lb-request-id") == "" || r.Header.Get("lb-trace-id") == "" {
				t.Fatal("missing lb-request-id / lb-trace-id")
			}
		})
	}
	t.Run("type error names the field", func(t *testing.T) {
		r := ts.Do("POST", "/v1/keys", servertest.AdminKey, `{"name":5}`)
		if !strings.Contains(string(r.Body), `name: must be of type string`) {
			t.Fatalf("body %s", r.Body)
		}
	})
}

func TestEmptyJSONBodyOnGetAndDelete(t *testing.T) {
	ts := servertest.Start(t)
	created := ts.Do("POST", "/v1/keys", servertest.AdminKey, map[string]string{"name": "second"})
	var k struct {
		Key  string              `json:"key"`
		Info struct{ ID string } `json:"info"`
	}
	created.JSON(t, &k)
	for _, r := range []*servertest.Response{
		ts.Do("GET", "/v1/keys", servertest.AdminKey, nil),
		ts.Do("DELETE", "/v1/keys/"+k.Info.ID, servertest.AdminKey, nil),
	} {
		if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			t.Fatalf("status %d body %s", r.Status, r.Body)
		}
	}
}

func TestInfoEndpoints(t *testing.T) {
	ts := servertest.Start(t)
	for _, p := range []string{"/", "/health", "//health", "/health/"} {
		r := ts.Do("GET", p, "", nil)
		var info struct {
			Success bool   `json:"success"`
			Message string `json:"message"`
			Link    string `json:"link"`
		}
		r.JSON(t, &info)
		if r.Status != 200 || !info.Success || info.Message == "" || !strings.HasPrefix(info.Link, ts.URL) {
			t.Fatalf("%s: %d %s", p, r.Status, r.Body)
		}
	}
	r := ts.Do("GET", "/v1/models", "", nil)
	if r.Status != 200 || r.Body[0] != '{' {
		t.Fatalf("models: %d %s", r.Status, r.Body)
	}
}

// TestRoutesListsEveryRoute checks /routes against the table the server
// registered, and that each listed route is really served (not a 404).
func TestRoutesListsEveryRoute(t *testing.T) {
	ts := servertest.Start(t)
	var body struct {
		Success bool `json:"success"`
		Routes  []struct{ Method, Path string }
	}
	ts.Do("GET", "/routes", "", nil).JSON(t, &body)
	table := ts.Routes()
	if !body.Success || len(body.Routes) != len(table) || len(table) < 5 {
		t.Fatalf("routes %d, table %d", len(body.Routes), len(table))
	}
	for i, r := range table {
		if body.Routes[i].Method != r.Method || body.Routes[i].Path != r.Path {
			t.Fatalf("route %d: %+v vs %s %s", i, body.Routes[i], r.Method, r.Path)
		}
		path := strings.NewReplacer(":id", "x", ":org", "x", ":name", "x").Replace(r.Path)
		if resp := ts.Do(r.Method, path, "", nil); resp.Status == 404 && strings.Contains(string(resp.Body), "route not found") {
			t.Fatalf("%s %s is listed but not served", r.Method, r.Path)
		}
	}
}

func TestCORS(t *testing.T) {
	ts := servertest.Start(t)
	req, _ := http.NewRequest("OPTIONS", ts.URL+"/v1/keys", nil)
	req.Header.Set("Origin", "http://app.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "authorization,content-type,lb-llm-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 || !strings.Contains(strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers")), "lb-llm-key") {
		t.Fatalf("preflight %d %v", resp.StatusCode, resp.Header)
	}
	r := ts.Do("GET", "/health", "", nil, "Origin", "http://app.example")
	if exp := strings.ToLower(r.Header.Get("Access-Control-Expose-Headers")); !strings.Contains(exp, "lb-thread-id") || !strings.Contains(exp, "lb-request-id") {
		t.Fatalf("expose headers %q", exp)
	}
}

func TestKeyKindsAndIsolation(t *testing.T) {
	ts := servertest.Start(t)
	alice := ts.UserWithKey("alice")
	bob := ts.UserWithKey("bob")
	acme := ts.OrgWithKey("acme", "alice")

	var me struct{ Login, Kind string }
	ts.Do("GET", "/v1/me", acme, nil).JSON(t, &me)
	if me.Login != "acme" || me.Kind != "org" {
		t.Fatalf("me = %+v", me)
	}

	// alice creates a key; bob can neither see nor revoke it (404, not 403).
	var k struct{ Info struct{ ID string } }
	ts.Do("POST", "/v1/keys", alice, map[string]string{"name": "ci"}).JSON(t, &k)
	if r := ts.Do("DELETE", "/v1/keys/"+k.Info.ID, bob, nil); r.Status != 404 {
		t.Fatalf("bob revoking alice's key: %d %s", r.Status, r.Body)
	}
	var list []struct{ ID string }
	ts.Do("GET", "/v1/keys", bob, nil).JSON(t, &list)
	for _, it := range list {
		if it.ID == k.Info.ID {
			t.Fatal("bob sees alice's key")
		}
	}
	if r := ts.Do("DELETE", "/v1/keys/"+k.Info.ID, alice, nil); r.Status != 200 {
		t.Fatalf("alice revoking: %d %s", r.Status, r.Body)
	}
}

func TestRevokedKeyIsRefused(t *testing.T) {
	ts := servertest.Start(t)
	var k struct {
		Key  string
		Info struct{ ID string }
	}
	ts.Do("POST", "/v1/keys", servertest.AdminKey, map[string]string{"name": "tmp"}).JSON(t, &k)
	if r := ts.Do("GET", "/v1/me", k.Key, nil); r.Status != 200 {
		t.Fatalf("new key: %d", r.Status)
	}
	if r := ts.Do("DELETE", "/v1/keys/"+k.Info.ID, k.Key, nil); r.Status != 400 {
		t.Fatalf("self-revoke: %d %s", r.Status, r.Body)
	}
	ts.Do("DELETE", "/v1/keys/"+k.Info.ID, servertest.AdminKey, nil)
	if r := ts.Do("GET", "/v1/me", k.Key, nil); r.Status != 401 {
		t.Fatalf("revoked key: %d", r.Status)
	}
}

func TestRestartKeepsData(t *testing.T) {
	dir := t.TempDir()
	ts := servertest.StartDir(t, dir)
	var k struct{ Key string }
	ts.Do("POST", "/v1/keys", servertest.AdminKey, map[string]string{"name": "kept"}).JSON(t, &k)
	ts.Stop()

	ts = servertest.StartDir(t, dir)
	if r := ts.Do("GET", "/v1/me", k.Key, nil); r.Status != 200 {
		t.Fatalf("key lost across restart: %d %s", r.Status, r.Body)
	}
	accts, err := ts.Accounts.List(context.Background())
	if err != nil || len(accts) != 1 {
		t.Fatalf("bootstrap ran twice: %v %d", err, len(accts))
	}
}

func TestModelsCatalogueIsRealData(t *testing.T) {
	ts := servertest.Start(t)
	var cat map[string][]struct {
		ID, Provider, Type string
		PromptCost         *float64 `json:"promptCost"`
		SupportedSizes     []string `json:"supportedSizes"`
	}
	ts.Do("GET", "/v1/models", "", nil).JSON(t, &cat)
	found := map[string]bool{}
	for prov, models := range cat {
		for _, m := range models {
			if m.Provider != prov || !strings.HasPrefix(m.ID, prov+":") || (m.Type != "text" && m.Type != "image") {
				t.Fatalf("bad entry %+v under %s", m, prov)
			}
			if m.Type == "text" && m.PromptCost == nil {
				t.Fatalf("text model without price: %+v", m)
			}
			if m.Type == "image" && len(m.SupportedSizes) == 0 {
				t.Fatalf("image model without sizes: %+v", m)
			}
			found[m.ID] = true
		}
	}
	for _, id := range []string{"openai:gpt-4o-mini", "hearth:echo", "openai:gpt-image-1"} {
		if !found[id] {
			t.Errorf("catalogue lacks %s", id)
		}
	}
	// Keysets accept only known providers.
	if r := ts.Do("PUT", "/v1/keysets/nosuch", servertest.AdminKey, map[string]string{"key": "k"}); r.Status != 400 || !strings.Contains(string(r.Body), "unknown provider") {
		t.Fatalf("unknown provider keyset: %d %s", r.Status, r.Body)
	}
	if r := ts.Do("PUT", "/v1/keysets/ollama", servertest.AdminKey, map[string]string{"key": "k"}); r.Status != 200 {
		t.Fatalf("ollama keyset: %d %s", r.Status, r.Body)
	}
}
