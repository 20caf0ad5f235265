package agent

import (
	"context"
	"errors"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/telemetry"
)

// tracedCall is callOne inside an "execute_tool <tool>" span when the run
// is traced (OpenTelemetry GenAI execute_tool span,
// https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-agent-spans/):
// gen_ai.tool.name is the MCP tool's own name, hearth.mcp.server the
// server it ran on; a failed call marks the span failed.
func (tb *toolbox) tracedCall(ctx context.Context, c engine.ToolCall) (text, failed string) {
	if telemetry.FromContext(ctx) == nil {
		return tb.callOne(ctx, c)
	}
	t := tb.byName[c.Function.Name]
	ctx, sp := telemetry.Start(ctx, "execute_tool "+t.name, telemetry.KindInternal,
		telemetry.String("gen_ai.operation.name", "execute_tool"), telemetry.String("gen_ai.tool.name", t.name),
		telemetry.String("gen_ai.tool.call.id", c.ID), telemetry.String("gen_ai.tool.type", "extension"),
		telemetry.String("hearth.mcp.server", t.server))
	defer sp.End()
	text, failed = tb.callOne(ctx, c)
	if failed != "" {
		sp.SetAttrs(telemetry.String("error.type", "tool_error"))
		sp.Fail(errors.New(failed))
	}
	return text, failed
}
