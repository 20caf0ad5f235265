package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// session is one open MCP connection, listed at connect time.
type session struct {
	server      engine.MCPServer
	cs          *sdk.ClientSession
	cancel      context.CancelFunc
	callTimeout time.Duration
	tools       []engine.RemoteTool
}

var _ engine.ToolSession = (*session)(nil)

// Tools returns the tools listed when the session opened.
func (s *session) Tools(context.Context) ([]engine.RemoteTool, error) { return s.tools, nil }

// Call runs one tool under the call timeout. Protocol-level errors (unknown
// tool, bad arguments) come back as error results, so the model sees them.
func (s *session) Call(ctx context.Context, name string, args json.RawMessage) (*engine.RemoteToolResult, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout())
	defer cancel()
	res, err := s.cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, engine.Errorf(engine.CodeUpstreamTimeout, "no answer within %s", s.timeout())
		}
		if ctx.Err() != nil {
			return nil, engine.Wrap(ctx.Err(), engine.CodeUpstreamTimeout, "call cancelled")
		}
		return &engine.RemoteToolResult{IsError: true, Text: redact(err.Error(), s.server)}, nil
	}
	return &engine.RemoteToolResult{Text: resultText(res), IsError: res.IsError}, nil
}

// closeGrace is how long Close lets the session end politely before it
// cuts the HTTP requests still in flight (a timed-out call can keep one).
const closeGrace = 500 * time.Millisecond

// Close ends the MCP session and its HTTP streams.
func (s *session) Close() error {
	t := time.AfterFunc(closeGrace, s.cancel)
	err := s.cs.Close()
	t.Stop()
	s.cancel()
	return err
}

func (s *session) timeout() time.Duration { return s.callTimeout }

// resultText joins the text of a result's content for the model. Non-text
// content is described in brackets; structured content is used when there
// is no content at all.
func resultText(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch v := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, v.Text)
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes]", v.MIMEType, len(v.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes]", v.MIMEType, len(v.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource %s: %s]", v.Name, v.URI))
		case *sdk.EmbeddedResource:
			if v.Resource != nil && v.Resource.Text != "" {
				parts = append(parts, v.Resource.Text)
			} else if v.Resource != nil {
				parts = append(parts, fmt.Sprintf("[resource %s]", v.Resource.URI))
			}
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			return string(b)
		}
	}
	return strings.Join(parts, "\n")
}
