package config

import (
	"maps"
	"strings"
	"testing"
)

// TestAppCopiesParsedText: the structured text settings (aliases, MCP
// upstreams, outbound hosts, faults, OTel headers) are parsed once, when
// Validate checks them, into typed fields that Config.App only copies: a
// text changed after Validate does not reach the app config, and a value
// Validate refused leaves no parsed remainder behind.
func TestAppCopiesParsedText(t *testing.T) {
	env := map[string]string{
		"HEARTH_ANTHROPIC_MODEL_ALIASES": "claude-sonnet-4-5=ollama:qwen3-coder,*=pipe:coder",
		"HEARTH_MCP_UPSTREAMS":           `[{"name":"calc","url":"http://127.0.0.1:9/mcp"}]`,
		"HEARTH_OUTBOUND":                "allowlist",
		"HEARTH_OUTBOUND_HOSTS":          "127.0.0.1:11434, 10.0.0.0/8",
		"HEARTH_FAULTS":                  "openai:429@0.1",
		"HEARTH_OTEL_ENDPOINT":           "http://collector:4318",
		"HEARTH_OTEL_HEADERS":            "Authorization=Bearer%20abc",
	}
	cfg, err := loadValid(t, nil, env)
	if err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, cfg Config) {
		t.Helper()
		ac := cfg.App(make([]byte, 32), nil, "test")
		if want := map[string]string{"claude-sonnet-4-5": "ollama:qwen3-coder", "*": "pipe:coder"}; !maps.Equal(ac.HTTP.AnthropicModelAliases, want) {
			t.Errorf("aliases %v", ac.HTTP.AnthropicModelAliases)
		}
		if ups := ac.HTTP.MCPUpstreams; len(ups) != 1 || ups[0].Name != "calc" || ups[0].URL != "http://127.0.0.1:9/mcp" {
			t.Errorf("MCP upstreams %+v", ups)
		}
		if got := strings.Join(ac.OutboundHosts, " "); got != "127.0.0.1:11434 10.0.0.0/8" {
			t.Errorf("outbound hosts %q", got)
		}
		if tk := ac.Testkit; !tk.Faults || len(tk.FaultRules) != 1 || tk.FaultRules[0].String() != "openai:429@0.1" {
			t.Errorf("faults %+v", tk)
		}
		if h := ac.OTel.Headers; len(h) != 1 || h["Authorization"] != "Bearer abc" {
			t.Errorf("OTel headers %v", h)
		}
	}
	check(t, cfg)
	changed := cfg
	changed.AnthropicModelAliases, changed.MCPUpstreams, changed.OutboundHosts = "a=b:c", "[]", "other.example"
	changed.Faults, changed.OTelHeaders = "off", "x=y"
	check(t, changed)

	bad := map[string]string{
		"HEARTH_ANTHROPIC_MODEL_ALIASES": "claude",
		"HEARTH_MCP_UPSTREAMS":           "{}",
		"HEARTH_OUTBOUND_HOSTS":          "https://x",
		"HEARTH_FAULTS":                  "openai:600",
		"HEARTH_OTEL_HEADERS":            "novalue",
	}
	for name, val := range bad {
		cfg, err := loadValid(t, nil, map[string]string{name: val, "HEARTH_OTEL_ENDPOINT": "http://c:4318"})
		if err == nil || !strings.Contains(err.Error(), name+": must be ") {
			t.Errorf("%s=%q: %v", name, val, err)
			continue
		}
		ac := cfg.App(make([]byte, 32), nil, "test")
		if len(ac.HTTP.AnthropicModelAliases)+len(ac.HTTP.MCPUpstreams)+len(ac.OutboundHosts)+len(ac.Testkit.FaultRules)+len(ac.OTel.Headers) != 0 || ac.Testkit.Faults {
			t.Errorf("%s=%q refused, yet parsed: %+v %+v %+v", name, val, ac.HTTP.AnthropicModelAliases, ac.Testkit, ac.OTel)
		}
	}
}
