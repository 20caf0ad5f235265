package main

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
}

func (c *Config) mcpVars() []configVar {
	return []configVar{
		{env: "HEARTH_MCP_UPSTREAMS", flag: "mcp-upstreams", usage: `upstream MCP servers whose tools /mcp offers as <name>__<tool>, a JSON array: [{"name":"calc","url":"https://host/mcp","authorization_token":"...","tool_configuration":{"allowed_tools":["add"]}}]`, str: &c.MCPUpstreams},
	}
}

// mcpServerName is what an upstream's name may hold: it prefixes tool
// names, which clients restrict to these characters.
var mcpServerName = regexp.MustCompile(`^[A-Za-z0-9-]+(_[A-Za-z0-9-]+)*$`)

// validateMCP checks HEARTH_MCP_UPSTREAMS.
func (c *Config) validateMCP() []error {
	if _, err := parseMCPUpstreams(c.MCPUpstreams); err != nil {
		return []error{fmt.Errorf("HEARTH_MCP_UPSTREAMS: %v", err)}
	}
	return nil
}

// mcpUpstreams returns the upstream servers (call after Validate).
func (c *Config) mcpUpstreams() []engine.MCPServer {
	ups, _ := parseMCPUpstreams(c.MCPUpstreams)
	return ups
}

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
