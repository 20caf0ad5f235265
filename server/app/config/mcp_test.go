package config

import (
	"strings"
	"testing"
)

// TestMCPUpstreams: the upstream list parses from the environment, and
// each malformed entry is refused naming the setting and the rule.
func TestMCPUpstreams(t *testing.T) {
	env := map[string]string{"HEARTH_MCP_UPSTREAMS": `[{"name":"calc","url":"http://127.0.0.1:9/mcp","authorization_token":"t","tool_configuration":{"allowed_tools":["add"]}},{"name":"docs-2","url":"https://mcp.example/sse"}]`}
	cfg, _, err := Load("serve", nil, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	ups := cfg.App(make([]byte, 32), nil, "test").HTTP.MCPUpstreams
	if len(ups) != 2 || ups[0].Name != "calc" || ups[0].AuthorizationToken != "t" || !ups[0].Allows("add") || ups[0].Allows("echo") || !ups[1].Allows("anything") {
		t.Fatalf("upstreams %+v", ups)
	}
	for bad, msg := range map[string]string{
		`{"name":"a"}`:                                                  "JSON array",
		`[{"name":"a__b","url":"http://h/mcp"}]`:                        "single '_'",
		`[{"name":"a.b","url":"http://h/mcp"}]`:                         "letters, digits",
		`[{"name":"a","url":"h/mcp"}]`:                                  "absolute http(s) URL",
		`[{"name":"a","url":"http://h"},{"name":"a","url":"http://h"}]`: "named twice",
		`[{"name":"a","url":"http://h","tools":[]}]`:                    "unknown field",
	} {
		cfg := Default()
		cfg.MCPUpstreams = bad
		err := cfg.checkOptions()
		if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "HEARTH_MCP_UPSTREAMS") || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
