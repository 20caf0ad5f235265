package agent

import (
	"context"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/telemetry"
)

// startInvoke opens the run's "invoke_agent" span when the request is
// traced (OpenTelemetry GenAI invoke agent internal span,
// https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-agent-spans/#invoke-agent-internal-span):
// the agent runs in this process, so the span is INTERNAL, and every chat
// and execute_tool span of the run is its child. An agent run has no
// name, so the span is named after the operation alone, as the convention
// allows. Without a span in ctx it returns ctx and nil.
func startInvoke(ctx context.Context, run *agentRun) (context.Context, *telemetry.Span) {
	if telemetry.FromContext(ctx) == nil {
		return ctx, nil
	}
	return telemetry.Start(ctx, "invoke_agent", telemetry.KindInternal,
		telemetry.String("gen_ai.operation.name", "invoke_agent"),
		telemetry.String("gen_ai.provider.name", engine.GenAIProvider(run.ref.Provider)),
		telemetry.String("gen_ai.request.model", run.ref.Model),
		telemetry.Bool("hearth.stream", run.stream),
		telemetry.Int("hearth.agent.mcp_servers", len(run.servers)))
}

// endInvoke ends the invoke_agent span with the model that answered, the
// tokens summed over every step and the error, if any.
func endInvoke(sp *telemetry.Span, ref engine.ModelRef, usage *engine.Usage, err error) {
	if sp == nil {
		return
	}
	sp.SetAttrs(telemetry.String("gen_ai.response.model", ref.Model))
	if usage != nil {
		sp.SetAttrs(telemetry.Int("gen_ai.usage.input_tokens", usage.PromptTokens),
			telemetry.Int("gen_ai.usage.output_tokens", usage.CompletionTokens))
	}
	if err != nil {
		sp.SetAttrs(telemetry.String("error.type", engine.ErrorCode(err)))
		sp.Fail(err)
	}
	sp.End()
}
