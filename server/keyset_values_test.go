package server_test

import (
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

// TestKeyValuesRefuseControlCharacters: a key-like value that goes into an
// HTTP header upstream is refused with a 400 naming its field when it
// holds NUL, CR or LF, wherever the user gives it: a stored keyset, the
// run's own provider key, web search and crawl keys, MCP tokens and custom
// headers. Nothing is stored.
func TestKeyValuesRefuseControlCharacters(t *testing.T) {
	ts := servertest.Start(t)
	alice := ts.UserWithKey("alice")
	for _, bad := range []string{"sk-a\x00b", "sk-a\r\nX-Injected: 1", "sk-a\nb"} {
		r := ts.Do("PUT", "/v1/keysets/openai", alice, map[string]string{"key": bad})
		if r.Status != 400 || !strings.Contains(string(r.Body), `"field":"key"`) || !strings.Contains(string(r.Body), "control characters") {
			t.Errorf("keyset %q: %d %s", bad, r.Status, r.Body)
		}
	}
	var list []struct{ Provider string }
	ts.Do("GET", "/v1/keysets", alice, nil).JSON(t, &list)
	if len(list) != 0 {
		t.Fatalf("a refused key was stored: %+v", list)
	}

	cases := []struct {
		name, path string
		body       map[string]any
		field      string
	}{
		{"run key in the body", "/v1/agent/run", map[string]any{"model": "openai:gpt-4o-mini", "input": "hi", "apiKey": "sk-a\x00b"}, "LB-LLM-Key"},
		{"web search key", "/v1/tools/web-search", map[string]any{"query": "q", "service": "exa", "apiKey": "exa\r\nX: 1"}, "LB-WEB-SEARCH-KEY"},
		{"crawl key", "/v1/tools/crawl", map[string]any{"url": []string{"https://example.com"}, "service": "spider", "apiKey": "k\x00"}, "LB-CRAWL-KEY"},
		{"MCP token", "/v1/agent/run", map[string]any{"model": "openai:gpt-4o-mini", "input": "hi", "mcp_servers": []map[string]any{
			{"name": "m", "type": "url", "url": "https://mcp.example/mcp", "authorization_token": "tok\x00en"}}}, "mcp_servers[0].authorization_token"},
		{"MCP header", "/v1/agent/run", map[string]any{"model": "openai:gpt-4o-mini", "input": "hi", "mcp_servers": []map[string]any{
			{"name": "m", "type": "url", "url": "https://mcp.example/mcp", "custom_headers": map[string]string{"X-Key": "a\x00b"}}}}, "mcp_servers[0].custom_headers.X-Key"},
	}
	for _, tc := range cases {
		r := ts.Do("POST", tc.path, alice, tc.body)
		if r.Status != 400 || !strings.Contains(string(r.Body), `"field":"`+tc.field+`"`) || !strings.Contains(string(r.Body), "control characters") {
			t.Errorf("%s: %d %s", tc.name, r.Status, r.Body)
		}
	}
}
