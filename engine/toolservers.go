package engine

import (
	"context"
	"encoding/json"
	"fmt"
)

// MCPServer is one entry of an agent run's mcp_servers. The authorization
// token is sent to the server as a bearer token; it is never stored or
// logged (String and LogValue hide it).
type MCPServer struct {
	Name               string            `json:"name"`
	Type               string            `json:"type"`
	URL                string            `json:"url"`
	AuthorizationToken string            `json:"authorization_token"`
	ToolConfiguration  *MCPToolConfig    `json:"tool_configuration"`
	CustomHeaders      map[string]string `json:"custom_headers"`
}

// MCPToolConfig restricts which tools of a server are offered. A nil
// AllowedTools offers all of them; an empty list offers none. Enabled false
// skips the server entirely.
type MCPToolConfig struct {
	AllowedTools []string `json:"allowed_tools"`
	Enabled      *bool    `json:"enabled"`
}

// String names the server without its secrets.
func (s MCPServer) String() string { return fmt.Sprintf("MCP server %q (%s)", s.Name, s.URL) }

// Enabled reports whether the server takes part in the run.
func (s MCPServer) Enabled() bool {
	return s.ToolConfiguration == nil || s.ToolConfiguration.Enabled == nil || *s.ToolConfiguration.Enabled
}

// Allows reports whether the tool configuration lets tool be offered.
func (s MCPServer) Allows(tool string) bool {
	if s.ToolConfiguration == nil || s.ToolConfiguration.AllowedTools == nil {
		return true
	}
	for _, t := range s.ToolConfiguration.AllowedTools {
		if t == tool {
			return true
		}
	}
	return false
}

// ToolServers connects to MCP servers for agent runs. The adapter
// (providers/mcp) owns the transport, the outbound address policy and the
// timeouts; it reports a server that cannot be reached as an *Error that
// names it.
type ToolServers interface {
	Connect(ctx context.Context, server MCPServer) (ToolSession, error)
}

// ToolSession is an open connection to one MCP server, valid for one run.
type ToolSession interface {
	// Tools lists the server's tools.
	Tools(ctx context.Context) ([]RemoteTool, error)
	// Call runs a tool. A tool that fails reports IsError in the result;
	// an error return means the call itself failed (transport, timeout).
	Call(ctx context.Context, name string, args json.RawMessage) (*RemoteToolResult, error)
	Close() error
}

// RemoteTool is a tool an MCP server offers.
type RemoteTool struct {
	Name        string
	Description string
	// InputSchema is the JSON Schema of the arguments (an object), or nil.
	InputSchema json.RawMessage
}

// RemoteToolResult is the outcome of a remote tool call, as text for the model.
type RemoteToolResult struct {
	Text    string
	IsError bool
}
