// Package agent runs agent requests (POST /v1/agent/run): one model call
// with every parameter in the request, optionally looping over the tools of
// MCP servers reached through engine.ToolServers (providers/mcp). It
// stores nothing.
package agent

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// DefaultAgentMaxSteps bounds the model calls of one agent run that uses
// MCP tools: each call that asks only for MCP tools is followed by their
// execution and another call. A run whose model still asks for MCP tools
// at the last step fails with UPSTREAM_ERROR instead of returning a
// half-finished answer.
const DefaultAgentMaxSteps = 10

// AgentOptions configure the agent service.
type AgentOptions struct {
	Providers engine.Providers
	Keysets   *engine.Keysets
	// Tools connects to MCP servers; nil refuses runs with mcp_servers.
	Tools engine.ToolServers
	// MaxSteps overrides DefaultAgentMaxSteps when > 0.
	MaxSteps int
	// RunLog, when set, records every POST /v1/agent/run (runlog.go).
	RunLog *engine.RunLog
}

// Agent runs POST /v1/agent/run: one LLM call with every parameter in the
// request, optionally looping over MCP tool calls. It stores nothing.
type Agent struct {
	providers engine.Providers
	keysets   *engine.Keysets
	tools     engine.ToolServers
	maxSteps  int
	runs      *engine.RunLog
}

// NewAgent returns the agent service.
func NewAgent(o AgentOptions) *Agent {
	if o.MaxSteps <= 0 {
		o.MaxSteps = DefaultAgentMaxSteps
	}
	return &Agent{providers: o.Providers, keysets: o.Keysets, tools: o.Tools, maxSteps: o.MaxSteps, runs: o.RunLog}
}

// AgentResult is the outcome of a run: Response (with Output) when the
// request did not stream, Stream when it did. The caller must Close Stream.
type AgentResult struct {
	// Output is the answer text; nil when the model called a caller-defined tool.
	Output   *string
	Response *engine.ChatResponse
	Stream   *AgentStream
	// Model is the model that answered (a fallback model when the first failed).
	Model engine.ModelRef
	// text is where Output points (one allocation with the result).
	text string
}

// Run validates req, resolves the provider key (requestKey is the
// LB-LLM-Key header; the body's apiKey is the fallback), connects the MCP
// servers and runs the model. Errors before the first model output are
// returned here, so the caller can answer them as plain HTTP errors.
func (a *Agent) Run(ctx context.Context, owner, requestKey string, req *AgentRunRequest) (*AgentResult, error) {
	return a.RunIn(ctx, owner, requestKey, req, new(RunState))
}

// RunState is the memory of one agent run, for a caller that keeps it
// with its request (RunIn) rather than have Run allocate it. A state is
// used for one run only: the result and its stream point into it.
type RunState struct {
	run agentRun
}

// RunIn is Run with the run's memory in st.
func (a *Agent) RunIn(ctx context.Context, owner, requestKey string, req *AgentRunRequest, st *RunState) (*AgentResult, error) {
	run := &st.run
	if err := req.validateInto(run); err != nil {
		return nil, err
	}
	if a.providers == nil {
		return nil, engine.Errorf(engine.CodeUnavailable, "no model providers are configured")
	}
	fallbacks, err := engine.ParseFallbackModels("fallback_models", req.FallbackModels, a.providers)
	if err != nil {
		return nil, err
	}
	run.rec = a.recorder(ctx, &run.recorder, owner, req.Model, run.stream)
	ctx, span := startInvoke(ctx, run)
	res, err := a.start(ctx, owner, requestKey, run, fallbacks)
	if err != nil {
		endInvoke(span, run.ref, nil, err)
		if run.accepted {
			run.rec.finish(runOutcome{ref: run.ref, err: err})
		}
		return nil, err
	}
	if res.Stream != nil {
		res.Stream.span = span
	}
	if res.Response != nil {
		endInvoke(span, res.Model, &res.Response.Usage, nil)
		run.secrets = [2]string{run.chat.APIKey, requestKey}
		out := runOutcome{ref: res.Model, usage: &res.Response.Usage, messages: run.chat.Messages, secrets: run.secrets[:]}
		if len(res.Response.Choices) > 0 {
			out.completion, out.toolCalls = engine.Completion(res.Response), res.Response.Choices[0].Message.ToolCalls
		}
		run.rec.finish(out)
	}
	return res, nil
}

// Complete runs one chat completion without MCP servers: the request of
// the OpenAI-compatible surface, already validated, for model ref (then
// its fallbacks). requestKey is the caller's provider key, if any.
func (a *Agent) Complete(ctx context.Context, owner, requestKey string, ref engine.ModelRef, fallbacks []engine.ModelRef, chat *engine.ChatRequest, stream bool) (*AgentResult, error) {
	if a.providers == nil {
		return nil, engine.Errorf(engine.CodeUnavailable, "no model providers are configured")
	}
	chat.Model = ref.Model
	return a.start(ctx, owner, requestKey, &agentRun{ref: ref, chat: chat, stream: stream}, fallbacks)
}

// start resolves the model and its key, connects the MCP servers and
// makes the first model call.
func (a *Agent) start(ctx context.Context, owner, requestKey string, run *agentRun, fallbacks []engine.ModelRef) (*AgentResult, error) {
	if err := engine.ScopeOf(ctx).CheckModels(append([]engine.ModelRef{run.ref}, fallbacks...)...); err != nil {
		return nil, err
	}
	model, err := run.model.ChatModel(a.providers, run.ref)
	if err != nil {
		return nil, err
	}
	run.accepted = true
	if strings.TrimSpace(requestKey) == "" {
		requestKey = run.apiKey
	}
	if a.keysets != nil {
		if run.chat.APIKey, err = a.keysets.Resolve(ctx, run.ref.Provider, requestKey, "", owner); err != nil {
			return nil, err
		}
	} else {
		run.chat.APIKey = strings.TrimSpace(requestKey)
	}
	tb, err := openToolbox(ctx, &run.toolbox, a.tools, run.servers, run.chat.Tools)
	if err != nil {
		return nil, err
	}
	tb.rec = run.rec
	if tc := run.chat.ToolChoice; tc != nil && tc.Function != "" && !engine.HasToolNamed(run.chat.Tools, tc.Function) && !tb.isMCP(tc.Function) {
		tb.close()
		return nil, engine.FieldError("tool_choice", "names function %q, which is not among the tools offered", tc.Function)
	}
	run.chat.Tools = append(run.chat.Tools, tb.tools...)
	var chain *engine.FallbackChat
	if len(fallbacks) > 0 {
		chain = engine.NewFallbackChat(a.providers, a.keysets, engine.KeyScope{RequestKey: requestKey, Owner: owner}, nil, run.ref, model, fallbacks)
		model = chain
	}
	if run.stream {
		first, err := model.ChatStream(ctx, run.chat)
		if err != nil {
			tb.close()
			return nil, err
		}
		run.ref = engine.AnsweredBy(chain, run.ref)
		return &AgentResult{Stream: newAgentStream(ctx, a.maxSteps, model, run, tb, first), Model: run.ref}, nil
	}
	defer tb.close()
	resp, err := a.loop(ctx, model, run.chat, tb)
	if err != nil {
		return nil, err
	}
	run.ref = engine.AnsweredBy(chain, run.ref)
	engine.NormalizeResponse(ctx, resp, run.ref, engine.NowFrom(ctx, time.Now))
	res := &run.result
	*res = AgentResult{Response: resp, Model: run.ref}
	res.Output = outputOf(resp, &res.text)
	return res, nil
}

// outputOf is the answer text, kept in *text, or nil when the model called
// tools.
func outputOf(resp *engine.ChatResponse, text *string) *string {
	if len(resp.Choices) == 0 {
		*text = ""
		return text
	}
	m := resp.Choices[0].Message
	if len(m.ToolCalls) > 0 {
		return nil
	}
	*text = ""
	if m.Content != nil {
		*text = *m.Content
	}
	return text
}

// loop is the non-stream MCP loop: call the model, run the MCP tools it
// asks for, feed the results back, until it answers, calls a caller-defined
// tool, or the step limit is reached. Usage is summed over all steps.
func (a *Agent) loop(ctx context.Context, model engine.ChatModel, chat *engine.ChatRequest, tb *toolbox) (*engine.ChatResponse, error) {
	var usage engine.Usage
	for step := 1; ; step++ {
		resp, err := model.Chat(ctx, chat)
		if err != nil {
			return nil, err
		}
		addUsage(&usage, resp.Usage)
		if len(resp.Choices) == 0 {
			resp.Usage = usage
			return resp, nil
		}
		msg := &resp.Choices[0].Message
		fillCallIDs(msg.ToolCalls, step)
		mcpCalls, callerCalls := tb.split(msg.ToolCalls)
		if len(mcpCalls) == 0 || len(callerCalls) > 0 {
			msg.ToolCalls = callerCalls
			if len(callerCalls) > 0 {
				resp.Choices[0].FinishReason = "tool_calls"
			}
			resp.Usage = usage
			return resp, nil
		}
		if step >= a.maxSteps {
			return nil, stepLimitError(a.maxSteps)
		}
		results, err := tb.runTools(ctx, mcpCalls)
		if err != nil {
			return nil, err
		}
		chat = nextStep(chat, msg.Content, mcpCalls, results)
	}
}

func stepLimitError(n int) error {
	return engine.Errorf(engine.CodeUpstream, "the agent stopped after %d model steps: the model kept calling MCP tools without giving an answer", n)
}

// split separates calls to MCP tools from calls to caller-defined tools.
func (tb *toolbox) split(calls []engine.ToolCall) (mcp, caller []engine.ToolCall) {
	for _, c := range calls {
		if tb.isMCP(c.Function.Name) {
			mcp = append(mcp, c)
		} else {
			caller = append(caller, c)
		}
	}
	return mcp, caller
}

// fillCallIDs gives calls without an id (some providers omit them) one,
// so tool results can refer to them.
func fillCallIDs(calls []engine.ToolCall, step int) {
	for i := range calls {
		calls[i].Index = nil
		if calls[i].ID == "" {
			calls[i].ID = fmt.Sprintf("call_hearth_%d_%d", step, i)
		}
		if calls[i].Type == "" {
			calls[i].Type = "function"
		}
	}
}

// nextStep returns the request of the next step: the history plus the
// assistant's tool calls and their results. A tool_choice that forces a
// tool ("required" or a named function) is relaxed to "auto" after the
// first round, or the model could never answer.
func nextStep(chat *engine.ChatRequest, content *string, calls []engine.ToolCall, results []engine.Message) *engine.ChatRequest {
	next := *chat
	next.Messages = make([]engine.Message, 0, len(chat.Messages)+1+len(results))
	next.Messages = append(next.Messages, chat.Messages...)
	am := engine.Message{Role: "assistant", ToolCalls: calls}
	if content != nil && *content != "" {
		am.Content = engine.TextContent(*content)
	}
	next.Messages = append(next.Messages, am)
	next.Messages = append(next.Messages, results...)
	if tc := chat.ToolChoice; tc != nil && (tc.Function != "" || tc.Mode == "required") {
		next.ToolChoice = &engine.ToolChoice{Mode: "auto"}
	}
	return &next
}

func addUsage(sum *engine.Usage, u engine.Usage) {
	sum.PromptTokens += u.PromptTokens
	sum.CompletionTokens += u.CompletionTokens
	sum.TotalTokens += u.TotalTokens
	sum.CacheCreationTokens += u.CacheCreationTokens
	sum.CacheCreation1hTokens += u.CacheCreation1hTokens
	if u.PromptTokensDetails != nil {
		if sum.PromptTokensDetails == nil {
			sum.PromptTokensDetails = &engine.PromptTokensDetails{}
		}
		sum.PromptTokensDetails.CachedTokens += u.PromptTokensDetails.CachedTokens
		sum.PromptTokensDetails.AudioTokens += u.PromptTokensDetails.AudioTokens
	}
	if u.CompletionTokensDetails != nil {
		if sum.CompletionTokensDetails == nil {
			sum.CompletionTokensDetails = &engine.CompletionTokensDetails{}
		}
		d := sum.CompletionTokensDetails
		d.ReasoningTokens += u.CompletionTokensDetails.ReasoningTokens
		d.AudioTokens += u.CompletionTokensDetails.AudioTokens
		d.AcceptedPredictionTokens += u.CompletionTokensDetails.AcceptedPredictionTokens
		d.RejectedPredictionTokens += u.CompletionTokensDetails.RejectedPredictionTokens
	}
}
