package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// MCPSettings are the settings of the MCP endpoint
// (docs/openai-and-anthropic.md#use-hearth-from-claude-desktop-cursor-and-open-webui).
// Every node of a cluster reads its own; give them all the same.
type MCPSettings struct {
	// MCPUpstreams is a JSON array of upstream MCP servers whose tools
	// /mcp offers, in the shape of an agent run's mcp_servers entries.
	MCPUpstreams string `json:"mcp_upstreams"`
	// mcpUpstreams is MCPUpstreams parsed, set by Validate.
	mcpUpstreams []engine.MCPServer
}

// mcpServerName is what an upstream's name may hold: it prefixes tool
// names, which clients restrict to these characters.
var mcpServerName = regexp.MustCompile(`^[A-Za-z0-9-]+(_[A-Za-z0-9-]+)*$`)

// mcpServers allows HEARTH_MCP_UPSTREAMS.
var mcpServers = textCheck("a JSON array of MCP servers", "{}", func(s string) error {
	_, err := parseMCPUpstreams(s)
	return err
})

// parseMCPUpstreams reads the JSON array; nil for an empty setting.
func parseMCPUpstreams(s string) ([]engine.MCPServer, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.DisallowUnknownFields()
	var ups []engine.MCPServer
	if err := dec.Decode(&ups); err != nil {
		return nil, fmt.Errorf("want a JSON array of {name, url, authorization_token?, custom_headers?, tool_configuration?}: %v", err)
	}
	seen := map[string]bool{}
	for i, u := range ups {
		switch {
		case len(u.Name) > 64 || !mcpServerName.MatchString(u.Name):
			return nil, fmt.Errorf("[%d].name %q: want 1-64 letters, digits, '-' or single '_'", i, u.Name)
		case seen[u.Name]:
			return nil, fmt.Errorf("[%d].name %q: named twice", i, u.Name)
		}
		seen[u.Name] = true
		if p, err := url.Parse(u.URL); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return nil, fmt.Errorf("[%d].url %q: must be an absolute http(s) URL", i, u.URL)
		}
		if u.Type != "" && u.Type != "url" {
			return nil, fmt.Errorf(`[%d].type %q: must be "url" or absent`, i, u.Type)
		}
	}
	return ups, nil
}
